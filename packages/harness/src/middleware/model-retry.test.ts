import assert from "node:assert/strict";
import { test } from "node:test";
import { targetChars } from "./context-guard/context-guard.js";
import { retryDelayMs } from "./model-retry.js";

const options = { maxRetries: 3, modelName: "m", baseDelayMs: 1000, capDelayMs: 8000 };

test("backoff doubles per retry, stays under the cap, and its jitter is in the upper half", () => {
  const at = (attempt: number, random: number) =>
    retryDelayMs(attempt, { kind: "server", retryable: true }, { ...options, random: () => random });
  assert.deepEqual([at(1, 0), at(1, 0.999)], [500, 1000]);
  assert.deepEqual([at(2, 0), at(3, 0)], [1000, 2000]);
  assert.ok((at(10, 0.999) ?? Infinity) <= 8000 && at(10, 0) === 4000);
});

test("Retry-After is followed as sent, and a wait longer than allowed gives up", () => {
  assert.equal(retryDelayMs(1, { kind: "rate_limit", retryable: true, retryAfterMs: 8000 }, options), 8000);
  assert.equal(
    retryDelayMs(
      1,
      { kind: "rate_limit", retryable: true, retryAfterMs: 3_600_000 },
      { ...options, maxRetryAfterMs: 60_000 },
    ),
    null,
  );
});

test("the compaction target follows the sizes the provider's error states", () => {
  const error = new Error(
    "This model's maximum context length is 8000 tokens. However, your messages resulted in 16000 tokens.",
  );
  assert.equal(targetChars(error, 64_000, undefined), 25_600);
  assert.equal(targetChars(new Error("context length exceeded"), 64_000, 4000), 9600);
  assert.equal(targetChars(new Error("context length exceeded"), 64_000, undefined), 32_000);
});
