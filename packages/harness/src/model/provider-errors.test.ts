import assert from "node:assert/strict";
import { test } from "node:test";
import {
  classifyProviderError,
  contextLimitFromError,
  findRetryAfterMs,
  isContextLengthError,
} from "./provider-errors.js";

const withStatus = (status: number, message = "x", headers?: Record<string, string>) =>
  Object.assign(new Error(message), { status, headers });

test("retryable: 429, 5xx, 408, connection resets and timeouts; not: 401, 403, 400, quota", () => {
  assert.equal(classifyProviderError(withStatus(429)).retryable, true);
  assert.equal(classifyProviderError(withStatus(502)).kind, "server");
  assert.equal(classifyProviderError(withStatus(408)).retryable, true);
  assert.equal(
    classifyProviderError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })).kind,
    "connection",
  );
  assert.equal(
    classifyProviderError(
      new Error("Connection error.", {
        cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
      }),
    ).retryable,
    true,
  );
  assert.equal(
    classifyProviderError(Object.assign(new Error("Request timed out."), { name: "APIConnectionTimeoutError" })).kind,
    "timeout",
  );
  for (const status of [400, 401, 403, 404, 422])
    assert.equal(classifyProviderError(withStatus(status)).retryable, false, String(status));
  assert.equal(
    classifyProviderError(
      withStatus(429, "You exceeded your current quota, please check your plan and billing details."),
    ).retryable,
    false,
  );
});

test("context-length errors of OpenAI, Anthropic, vLLM and Ollama are recognised and not retried", () => {
  const messages = [
    "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.",
    "prompt is too long: 210000 tokens > 200000 maximum",
    "input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000, decrease input length or `max_tokens` and try again",
    "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).",
    "The decoder prompt (length 5000) is longer than the maximum model length of 4096.",
    "the request exceeds the available context size, try increasing it",
    "input length exceeds the context length",
  ];
  for (const message of messages) {
    assert.ok(isContextLengthError(withStatus(400, message)), message);
    assert.equal(classifyProviderError(withStatus(400, message)).kind, "context_length", message);
  }
  assert.equal(isContextLengthError(withStatus(400, "Invalid value for 'temperature'.")), false);
  assert.equal(isContextLengthError(Object.assign(withStatus(400, "Bad"), { code: "context_length_exceeded" })), true);
});

test("window and request size are read from the error when it gives them", () => {
  assert.deepEqual(contextLimitFromError(new Error(messagesOpenAI)), { window: 8192, requested: 9000 });
  assert.deepEqual(contextLimitFromError(new Error("prompt is too long: 210000 tokens > 200000 maximum")), {
    window: 200000,
    requested: 210000,
  });
  assert.deepEqual(contextLimitFromError(new Error("context length exceeded")), {
    window: undefined,
    requested: undefined,
  });
});
const messagesOpenAI =
  "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.";

test("Retry-After is read in seconds, as a date, or as retry-after-ms", () => {
  assert.equal(findRetryAfterMs(withStatus(429, "x", { "retry-after": "8" })), 8000);
  assert.equal(findRetryAfterMs(withStatus(429, "x", { "retry-after-ms": "250", "retry-after": "1" })), 250);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(findRetryAfterMs(withStatus(429, "x", { "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now), 5000);
  assert.equal(findRetryAfterMs(new Error("x", { cause: { headers: new Headers({ "retry-after": "2" }) } })), 2000);
  assert.equal(findRetryAfterMs(withStatus(429)), undefined);
});

test("errors sent as stream events, with no HTTP status, are classified by their type", () => {
  // What the Anthropic SDK throws for `event: error` mid-stream, and the OpenAI SDK for a `data: {"error"}` line.
  const anthropic = Object.assign(
    new Error('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
    {
      status: undefined,
      error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    },
  );
  assert.deepEqual(classifyProviderError(anthropic), { kind: "server", status: 529, retryable: true });
  const openai = Object.assign(new Error("The server had an error"), { error: { type: "server_error", message: "x" } });
  assert.equal(classifyProviderError(openai).retryable, true);
  const invalid = Object.assign(new Error("bad"), {
    error: { type: "error", error: { type: "invalid_request_error" } },
  });
  assert.equal(classifyProviderError(invalid).retryable, false);
});
