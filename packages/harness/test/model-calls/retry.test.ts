import assert from "node:assert/strict";
import { test } from "node:test";
import { createLeadAgent } from "../../src/agent/create-lead-agent.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { createTempHome, startFakeOpenAIServer, type FakeStep } from "../../src/testing/index.js";

const configFor = (url: string, entryExtra = "") =>
  parseConfigText(
    `models:\n  - {name: fake, use: openai, model: fake-model, api_key: x, base_url: '${url}'${entryExtra}}\n` +
      "memory: {enabled: false}\ntitle: {enabled: false}\nsandbox: {use: local}\nllm_call: {retry_base_delay_ms: 20, retry_cap_delay_ms: 40}\n",
    { source: "config.yaml", env: {} },
  );

/** Runs one turn through a real lead agent and the real ChatOpenAI client; collects custom events. */
async function runTurn(script: FakeStep[], entryExtra = "") {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({ script });
  const events: Record<string, unknown>[] = [];
  const warnings: string[] = [];
  const agent = await createLeadAgent(configFor(server.url, entryExtra), {
    home: home.path,
    env: {},
    onWarning: (w) => warnings.push(w),
  });
  let answer = "";
  let error: Error | undefined;
  try {
    const stream = await agent.stream(
      { messages: [{ role: "user", content: "hello" }] },
      { configurable: { thread_id: "t" }, streamMode: ["custom", "values"] },
    );
    for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
      if (mode === "custom") events.push(chunk as Record<string, unknown>);
      if (mode === "values") answer = String((chunk as { messages: { text: string }[] }).messages.at(-1)?.text ?? "");
    }
  } catch (caught) {
    error = caught as Error;
  } finally {
    await agent.close();
    await server.close();
    home.cleanup();
  }
  return {
    answer,
    error,
    events: events.filter((e) => e.type === "llm_retry"),
    requests: server.requests.length,
    warnings,
  };
}

test("a 429 with Retry-After is retried after the wait the server asked for, and an llm_retry event says so", async () => {
  const run = await runTurn([{ status: 429, headers: { "retry-after": "1" } }, { content: "Hello after the wait." }]);
  assert.equal(run.error, undefined);
  assert.equal(run.answer, "Hello after the wait.");
  assert.equal(run.requests, 2, "one failed request and one retry, no hidden client retries");
  assert.equal(run.events.length, 1);
  assert.deepEqual(
    {
      reason: run.events[0]!.reason,
      status: run.events[0]!.status,
      wait_ms: run.events[0]!.wait_ms,
      attempt: run.events[0]!.attempt,
      max_retries: run.events[0]!.max_retries,
    },
    { reason: "rate_limit", status: 429, wait_ms: 1000, attempt: 1, max_retries: 3 },
  );
  assert.equal(run.events[0]!.message, "rate limited (HTTP 429), retrying in 1 s (retry 1 of 3)");
});

test("5xx answers are retried with backoff until one succeeds", async () => {
  const run = await runTurn([{ status: 503 }, { status: 500 }, { content: "Finally." }]);
  assert.equal(run.answer, "Finally.");
  assert.deepEqual(
    run.events.map((e) => [e.reason, e.status, e.attempt]),
    [
      ["server", 503, 1],
      ["server", 500, 2],
    ],
  );
  assert.ok(
    run.events.every((e) => (e.wait_ms as number) <= 40),
    "waits stay under retry_cap_delay_ms",
  );
});

test("a 401 is not retried", async () => {
  const run = await runTurn([{ status: 401 }]);
  assert.ok(run.error, "the run fails");
  assert.equal(run.requests, 1);
  assert.equal(run.events.length, 0);
});

test("a 400 bad request is not retried", async () => {
  const run = await runTurn([{ status: 400, error: { message: "Invalid value for 'temperature'." } }]);
  assert.ok(run.error);
  assert.equal(run.requests, 1);
  assert.equal(run.events.length, 0);
});

test("retries are bounded: the model entry's max_retries wins over llm_call.max_retries", async () => {
  const run = await runTurn([{ status: 503 }, { status: 503 }, { content: "never sent" }], ", max_retries: 1");
  assert.ok(run.error);
  assert.match(run.error.message, /HTTP 503/);
  assert.equal(run.requests, 2, "the first attempt and one retry");
  assert.equal(run.events.length, 1);
});

test("an answer that never finishes is cut at the model's deadline and retried", async () => {
  // The deadline holds for the second attempt too: long enough that a loaded machine answers it in time.
  const run = await runTurn([{ hang: {} }, { content: "Second try worked." }], ", timeout: 2");
  assert.equal(run.error, undefined);
  assert.equal(run.answer, "Second try worked.");
  assert.deepEqual(
    run.events.map((e) => e.reason),
    ["timeout"],
  );
});
