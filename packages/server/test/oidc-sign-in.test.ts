/**
 * OIDC sign-in against a real OpenID Provider (oidc-provider on a loopback port): the happy paths a
 * person takes, and each way a callback or a provider can go wrong, asserting the error's code, that
 * its message says what to do, and that it carries no secret.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { generateKeyPair, SignJWT } from "jose";
import {
  createOidcClient,
  type OidcClient,
  OidcError,
  type OidcErrorCode,
  type OidcSettings,
  parseTransaction,
  serializeTransaction,
} from "../src/auth/oidc.js";
import { type OidcIssuer, startOidcIssuer } from "./support/oidc-issuer.js";

const REDIRECT = "http://127.0.0.1:9/api/v1/auth/callback/oidc";
const OTHER_REDIRECT = "http://127.0.0.1:9/other/callback";
const SECRET = "c1-secret-Zq8Xv3Lr";
const OTHER_SECRET = "c2-secret-Wm4Ty7Kp";
const alice = { sub: "alice", email: "alice@example.com", email_verified: true, name: "Alice Liddell" };
const bob = { sub: "bob", email: "bob@example.com" };

let idp: OidcIssuer;
let settings: OidcSettings;

before(async () => {
  idp = await startOidcIssuer({
    clients: [
      { client_id: "deerflow", client_secret: SECRET, redirect_uris: [REDIRECT] },
      { client_id: "other-app", client_secret: OTHER_SECRET, redirect_uris: [OTHER_REDIRECT] },
    ],
    accounts: [alice, bob],
  });
  settings = { issuer: idp.issuer, client_id: "deerflow", client_secret: SECRET, redirect_uri: REDIRECT };
});
after(() => idp.close());

/** Rejects with an OidcError of `code` whose message matches `pattern` and contains none of `secrets`. */
async function rejectsWith(promise: Promise<unknown>, code: OidcErrorCode, pattern: RegExp, secrets: string[] = []) {
  const error = await promise.then(
    () => assert.fail(`expected an OidcError "${code}"`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof OidcError, `expected an OidcError, got ${String(error)}`);
  assert.equal(error.code, code, error.message);
  assert.match(error.message, pattern);
  if (process.env.OIDC_SHOW_ERRORS) console.log(`[${code}] ${error.message}`);
  for (const secret of [SECRET, OTHER_SECRET, ...secrets]) {
    assert.ok(!error.message.includes(secret), `the message leaks a secret: ${error.message}`);
  }
  return error;
}

/** begin, then sign in at the provider as `sub`: the callback query and the transaction. */
async function signIn(client: OidcClient, sub = "alice") {
  const { url, transaction } = await client.begin();
  const callback = new URL(await idp.signIn(url, sub));
  return { query: callback.searchParams, transaction, callback };
}

/** A fetch that records every URL and lets `rewrite` replace the token endpoint's JSON answer. */
function recordingFetch(rewrite?: (json: Record<string, unknown>) => Promise<Record<string, unknown>>) {
  const calls: { url: string; init?: RequestInit }[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const url = String(input);
    calls.push({ url, init });
    const response = await fetch(input, init);
    if (!rewrite || !url.endsWith("/token")) return response;
    return Response.json(await rewrite((await response.json()) as Record<string, unknown>));
  };
  return { fetchImpl, calls };
}

describe("oidc sign-in against a real provider", () => {
  test("begin returns a code + PKCE authorization URL for this client", async () => {
    const { url, transaction } = await createOidcClient(settings).begin();
    const params = new URL(url).searchParams;
    assert.ok(url.startsWith(`${idp.issuer}/`));
    assert.equal(params.get("response_type"), "code");
    assert.equal(params.get("client_id"), "deerflow");
    assert.equal(params.get("redirect_uri"), REDIRECT);
    assert.equal(params.get("scope"), "openid email profile");
    assert.equal(params.get("state"), transaction.state);
    assert.equal(params.get("nonce"), transaction.nonce);
    assert.equal(params.get("code_challenge_method"), "S256");
    const challenge = createHash("sha256").update(transaction.code_verifier).digest("base64url");
    assert.equal(params.get("code_challenge"), challenge);
    assert.equal(params.get("code_verifier"), null, "the verifier never leaves the server");
    assert.ok(Math.abs(Date.now() - transaction.created_at) < 60_000);
  });

  test("finish returns the identity; email and name come from userinfo when the ID token lacks them", async () => {
    const { fetchImpl, calls } = recordingFetch();
    const client = createOidcClient(settings, { fetch: fetchImpl });
    const { query, transaction } = await signIn(client);
    // The transaction goes through its cookie form, as the server will keep it.
    const identity = await client.finish(query, parseTransaction(serializeTransaction(transaction)));
    assert.deepEqual(identity, {
      issuer: idp.issuer,
      subject: "alice",
      email: "alice@example.com",
      email_verified: true,
      name: "Alice Liddell",
    });
    assert.ok(
      calls.some((call) => call.url.endsWith("/me")),
      "userinfo was asked",
    );
    const token = calls.find((call) => call.url.endsWith("/token"));
    assert.match(new Headers(token?.init?.headers).get("authorization") ?? "", /^Basic /, "client_secret_basic");
  });

  test("an account without name or verified flag gives just what the provider knows", async () => {
    const client = createOidcClient(settings);
    const { query, transaction } = await signIn(client, "bob");
    assert.deepEqual(await client.finish(query, transaction), {
      issuer: idp.issuer,
      subject: "bob",
      email: "bob@example.com",
    });
  });

  test("claims in the ID token are used without calling userinfo", async () => {
    const rich = await startOidcIssuer({
      clients: [{ client_id: "deerflow", client_secret: SECRET, redirect_uris: [REDIRECT] }],
      accounts: [alice],
      claimsInIdToken: true,
    });
    try {
      const { fetchImpl, calls } = recordingFetch();
      const client = createOidcClient({ ...settings, issuer: rich.issuer }, { fetch: fetchImpl });
      const { url, transaction } = await client.begin();
      const query = new URL(await rich.signIn(url, "alice")).searchParams;
      const identity = await client.finish(query, transaction);
      assert.equal(identity.email, "alice@example.com");
      assert.equal(identity.name, "Alice Liddell");
      assert.ok(!calls.some((call) => call.url.endsWith("/me")), "userinfo was not needed");
    } finally {
      await rich.close();
    }
  });

  test("a provider that accepts only client_secret_post gets the secret in the body", async () => {
    const post = await startOidcIssuer({
      clients: [{ client_id: "deerflow", client_secret: SECRET, redirect_uris: [REDIRECT] }],
      accounts: [alice],
      tokenEndpointAuthMethods: ["client_secret_post"],
    });
    try {
      const { fetchImpl, calls } = recordingFetch();
      const client = createOidcClient({ ...settings, issuer: post.issuer }, { fetch: fetchImpl });
      const { url, transaction } = await client.begin();
      const query = new URL(await post.signIn(url, "alice")).searchParams;
      assert.equal((await client.finish(query, transaction)).subject, "alice");
      const token = calls.find((call) => call.url.endsWith("/token"));
      assert.equal(new Headers(token?.init?.headers).get("authorization"), null);
      assert.equal(new URLSearchParams(String(token?.init?.body)).get("client_id"), "deerflow");
    } finally {
      await post.close();
    }
  });

  test("a callback for another browser's sign-in (state mismatch) is refused before any exchange", async () => {
    const { fetchImpl, calls } = recordingFetch();
    const client = createOidcClient(settings, { fetch: fetchImpl });
    const first = await signIn(client);
    const second = await client.begin();
    const code = first.query.get("code") ?? "";
    await rejectsWith(
      client.finish(first.query, second.transaction),
      "callback_invalid",
      /state mismatch.*Start the sign-in again/,
      [code],
    );
    assert.ok(!calls.some((call) => call.url.endsWith("/token")), "the code was not spent");
    // The code was not spent: the right browser still finishes.
    assert.equal((await client.finish(first.query, first.transaction)).subject, "alice");
  });

  test("a missing or stale transaction is refused with 'start again'", async () => {
    const client = createOidcClient(settings);
    const { query, transaction } = await signIn(client);
    const code = query.get("code") ?? "";
    await rejectsWith(
      client.finish(query, null),
      "callback_invalid",
      /No sign-in is in progress.*Start the sign-in again/,
      [code],
    );
    await rejectsWith(
      client.finish(query, parseTransaction("garbage")),
      "callback_invalid",
      /No sign-in is in progress/,
    );
    const stale = { ...transaction, created_at: Date.now() - 11 * 60_000 };
    await rejectsWith(
      client.finish(query, stale),
      "callback_invalid",
      /longer than 10 minutes.*Start the sign-in again/,
      [code, transaction.code_verifier],
    );
  });

  test("the person cancelling at the provider gives sign_in_denied with the provider's reason", async () => {
    const client = createOidcClient(settings);
    const { url, transaction } = await client.begin();
    const query = new URL(await idp.deny(url)).searchParams;
    assert.equal(query.get("error"), "access_denied");
    await rejectsWith(
      client.finish(query, transaction),
      "sign_in_denied",
      /cancelled or refused.*access_denied: The person cancelled the sign-in.*Start the sign-in again/,
    );
  });

  test("a callback naming another issuer (RFC 9207 iss) or none is refused", async () => {
    const client = createOidcClient(settings);
    const { query, transaction } = await signIn(client);
    const forged = new URLSearchParams(query);
    forged.set("iss", "https://evil.example");
    await rejectsWith(
      client.finish(forged, transaction),
      "callback_invalid",
      /comes from another identity provider \("https:\/\/evil\.example"\)/,
    );
    forged.delete("iss");
    await rejectsWith(client.finish(forged, transaction), "callback_invalid", /does not name its identity provider/);
    assert.equal((await client.finish(query, transaction)).subject, "alice");
  });

  test("a code is good once: the second exchange is refused as used or expired", async () => {
    const client = createOidcClient(settings);
    const { query, transaction } = await signIn(client);
    await client.finish(query, transaction);
    const code = query.get("code") ?? "";
    await rejectsWith(
      client.finish(query, transaction),
      "token_exchange_failed",
      /invalid_grant.*used already. Start the sign-in again/,
      [code, transaction.code_verifier],
    );
  });

  test("a wrong client secret is reported as bad client credentials, without the secret", async () => {
    const wrong = "not-the-secret-Pq2Rs5";
    const client = createOidcClient({ ...settings, client_secret: wrong });
    const { query, transaction } = await signIn(client);
    await rejectsWith(
      client.finish(query, transaction),
      "token_exchange_failed",
      /client credentials.*auth\.oidc\.client_secret/,
      [wrong, query.get("code") ?? ""],
    );
  });

  test("a provider error that echoes the code, verifier or secret is shown with them blanked", async () => {
    const fetchImpl: typeof fetch = async (input, init) => {
      if (!String(input).endsWith("/token")) return fetch(input, init);
      const sent = new URLSearchParams(String(init?.body));
      const echo = `code ${sent.get("code")} verifier ${sent.get("code_verifier")} secret ${SECRET}`;
      return Response.json({ error: "invalid_request", error_description: echo }, { status: 400 });
    };
    const client = createOidcClient(settings, { fetch: fetchImpl });
    const { query, transaction } = await signIn(client);
    await rejectsWith(
      client.finish(query, transaction),
      "token_exchange_failed",
      /HTTP 400, invalid_request: code \[redacted\] verifier \[redacted\] secret \[redacted\]/,
      [query.get("code") ?? "", transaction.code_verifier],
    );
  });

  test("an ID token for another nonce is refused", async () => {
    const client = createOidcClient(settings);
    const { query, transaction } = await signIn(client);
    const replayed = { ...transaction, nonce: "A".repeat(43) };
    await rejectsWith(client.finish(query, replayed), "id_token_invalid", /nonce/, [query.get("code") ?? ""]);
  });

  test("an ID token the provider issued to another client (aud) is refused", async () => {
    const other = createOidcClient({
      ...settings,
      client_id: "other-app",
      client_secret: OTHER_SECRET,
      redirect_uri: OTHER_REDIRECT,
    });
    const stolen = await signIn(other);
    let foreign = "";
    const { fetchImpl } = recordingFetch(async (json) => {
      // The token endpoint answers with an ID token obtained by other-app, signed by the real provider.
      const response = await fetch(`${idp.issuer}/token`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from(`other-app:${OTHER_SECRET}`).toString("base64")}` },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: stolen.query.get("code") ?? "",
          redirect_uri: OTHER_REDIRECT,
          code_verifier: stolen.transaction.code_verifier,
        }),
      });
      foreign = ((await response.json()) as { id_token: string }).id_token;
      return { ...json, id_token: foreign };
    });
    const client = createOidcClient(settings, { fetch: fetchImpl });
    const { query, transaction } = await signIn(client);
    await rejectsWith(client.finish(query, transaction), "id_token_invalid", /"aud" claim/);
    assert.ok(foreign.length > 0);
  });

  test("an ID token signed with a key the provider does not hold is refused", async () => {
    const jwks = (await (await fetch(`${idp.issuer}/jwks`)).json()) as { keys: { kid: string }[] };
    const kid = jwks.keys[0]?.kid ?? "";
    const { privateKey } = await generateKeyPair("RS256");
    let forged = "";
    const { fetchImpl } = recordingFetch(async (json) => {
      const claims = JSON.parse(Buffer.from(String(json.id_token).split(".")[1] ?? "", "base64url").toString());
      forged = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid }).sign(privateKey);
      return { ...json, id_token: forged };
    });
    const client = createOidcClient(settings, { fetch: fetchImpl });
    const { query, transaction } = await signIn(client);
    const error = await rejectsWith(client.finish(query, transaction), "id_token_invalid", /signature/);
    assert.ok(forged && !error.message.includes(forged));
  });
  test("signing keys that cannot be fetched are reported as the provider being unreachable", async () => {
    const fetchImpl: typeof fetch = async (input, init) => {
      if (String(input).endsWith("/jwks")) throw new TypeError("fetch failed");
      return fetch(input, init);
    };
    const client = createOidcClient(settings, { fetch: fetchImpl });
    const { query, transaction } = await signIn(client);
    await rejectsWith(client.finish(query, transaction), "provider_unreachable", /signing keys from .*\/jwks/, [
      query.get("code") ?? "",
    ]);
  });
});

describe("oidc client setup and discovery", () => {
  test("unusable settings are refused when the client is created", () => {
    assert.throws(
      () => createOidcClient({ ...settings, issuer: "http://id.example.com", client_secret: "" }),
      (error: unknown) =>
        error instanceof OidcError &&
        error.code === "config_invalid" &&
        /issuer must be an https URL.*client_secret is empty/.test(error.message),
    );
    assert.doesNotThrow(() => createOidcClient({ ...settings, issuer: "https://id.example.com/realms/main" }));
  });

  test("an unreachable issuer says so and what to check", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const client = createOidcClient({ ...settings, issuer: `http://127.0.0.1:${port}` });
    await rejectsWith(
      client.begin(),
      "provider_unreachable",
      /Could not reach the identity provider's discovery document.*ECONNREFUSED.*auth\.oidc\.issuer/,
    );
  });

  test("discovery problems name the missing piece; a failed discovery is retried", async () => {
    let document: Record<string, unknown> | undefined;
    const server = createServer((_req, res) => {
      if (!document) return void res.writeHead(404).end("not here");
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(document));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const client = createOidcClient({ ...settings, issuer });
      await rejectsWith(
        client.begin(),
        "provider_invalid",
        /No OpenID Connect discovery document.*HTTP 404.*without \/\.well-known/,
      );

      document = { issuer, authorization_endpoint: `${issuer}/auth` };
      await rejectsWith(client.begin(), "provider_invalid", /lacks or has invalid: token_endpoint, jwks_uri/);

      document = {
        ...document,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        issuer: `${issuer}/realms/x`,
      };
      await rejectsWith(
        client.begin(),
        "provider_invalid",
        new RegExp(`Set auth.oidc.issuer to exactly "${issuer}/realms/x"`),
      );

      document = { ...document, issuer, token_endpoint_auth_methods_supported: ["private_key_jwt"] };
      await rejectsWith(client.begin(), "provider_invalid", /accepts only private_key_jwt/);

      document = { ...document, token_endpoint_auth_methods_supported: undefined };
      const { url } = await client.begin();
      assert.ok(url.startsWith(`${issuer}/auth?`));
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
