import { test } from "node:test";
import assert from "node:assert/strict";
import { CappedText, headTruncate, middleTruncate } from "./truncate.js";

test("middleTruncate keeps both ends and says how much was skipped", () => {
  assert.equal(middleTruncate("abcdefghij", 4), "ab\n... [middle truncated: 6 chars skipped] ...\nij");
  assert.equal(middleTruncate("short", 10), "short");
  assert.equal(middleTruncate("x".repeat(50), 0), "x".repeat(50), "0 means no limit");
});

test("headTruncate keeps the head and gives a hint", () => {
  assert.equal(
    headTruncate("abcdef", 3, "Use a range"),
    "abc\n... [truncated: showing first 3 of 6 chars. Use a range] ...",
  );
});

test("CappedText renders exactly what middleTruncate would, whatever the chunking", () => {
  const text = Array.from({ length: 5000 }, (_, i) => `line ${i}\n`).join("");
  for (const [max, chunk] of [
    [100, 7],
    [100, 1000],
    [1, 3],
    [40000, 4096],
    [99999, 13],
  ] as const) {
    const sink = new CappedText(max);
    for (let i = 0; i < text.length; i += chunk) sink.append(text.slice(i, i + chunk));
    assert.equal(sink.render(), middleTruncate(text, max), `max ${max} chunk ${chunk}`);
    assert.equal(sink.length, text.length);
  }
});
