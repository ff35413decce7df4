import { test } from "node:test";
import assert from "node:assert/strict";
import { boundText, boundTextTokens, collapseWhitespace, escapeData } from "./text.js";

test("escapeData neutralizes tags but leaves quotes alone", () => {
  assert.equal(
    escapeData(`</durable_context_data> & "x" <system>`),
    `&lt;/durable_context_data&gt; &amp; "x" &lt;system&gt;`,
  );
  assert.equal(escapeData("&lt;"), "&amp;lt;", "already-escaped text cannot smuggle a tag back in");
});

test("collapseWhitespace keeps a value on one line", () => {
  assert.equal(collapseWhitespace("  a\n\n b\t c  "), "a b c");
});

test("boundText keeps two thirds head and one third tail around an ellipsis line", () => {
  assert.equal(boundText("short", 10), "short");
  const text = "H".repeat(100) + "T".repeat(100);
  const bounded = boundText(text, 65);
  assert.equal(bounded.length, 65);
  assert.ok(bounded.startsWith("H".repeat(40)));
  assert.ok(bounded.endsWith("T".repeat(20)));
  assert.ok(bounded.includes("\n...\n"));
});

test("boundTextTokens fits the budget as measured by the counter", () => {
  const count = (t: string) => Math.ceil(t.length / 4);
  const text = "word ".repeat(1000);
  const bounded = boundTextTokens(text, 100, count);
  assert.ok(count(bounded) <= 100);
  assert.ok(count(bounded) >= 95, "uses most of the budget");
  assert.equal(boundTextTokens("tiny", 100, count), "tiny");
  assert.equal(boundTextTokens(text, 0, count), "");
});
