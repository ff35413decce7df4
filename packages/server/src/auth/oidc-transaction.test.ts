/** The sign-in transaction's cookie form: it round-trips, and anything else reads as "no sign-in". */
import assert from "node:assert/strict";
import { test } from "node:test";
import { providerText } from "./oidc-error.js";
import { newTransaction, parseTransaction, serializeTransaction } from "./oidc-transaction.js";

test("a transaction survives its cookie form, which is cookie-safe", () => {
  const transaction = newTransaction(1_700_000_000_000);
  const text = serializeTransaction(transaction);
  assert.match(text, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(parseTransaction(text), transaction);
});

test("each transaction has fresh, independent random values", () => {
  const a = newTransaction();
  const b = newTransaction();
  assert.notEqual(a.state, b.state);
  assert.notEqual(a.state, a.nonce);
  assert.notEqual(a.nonce, a.code_verifier);
  assert.match(a.code_verifier, /^[A-Za-z0-9_-]{43}$/, "a valid PKCE verifier (RFC 7636: 43 to 128 characters)");
});

test("a missing, garbled or edited cookie reads as no transaction", () => {
  const good = newTransaction();
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  for (const text of [
    undefined,
    "",
    "not base64 json!",
    encode(null),
    encode([]),
    encode({ ...good, state: "short" }),
    encode({ ...good, nonce: 42 }),
    encode({ ...good, code_verifier: `${"a".repeat(43)};x` }),
    encode({ ...good, created_at: "yesterday" }),
    "x".repeat(2000),
  ]) {
    assert.equal(parseTransaction(text), null, String(text).slice(0, 40));
  }
});

test("provider text is one short line with secrets blanked", () => {
  assert.equal(providerText("code abc123 was\n already used", ["abc123", ""]), "code [redacted] was already used");
  assert.equal(providerText(undefined, []), "");
  assert.equal(providerText("x".repeat(500), []).length, 200);
});
