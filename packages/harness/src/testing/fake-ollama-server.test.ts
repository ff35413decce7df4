import assert from "node:assert/strict";
import { test } from "node:test";
import { startFakeOllamaServer } from "./fake-ollama-server.js";
import type { FakeStep } from "./fake-script.js";

async function chat(
  t: test.TestContext,
  body: object,
  script: FakeStep[] = [{ content: "Hi 世界", reasoning: "hmm" }],
) {
  const server = await startFakeOllamaServer({ script });
  t.after(() => server.close());
  return fetch(`${server.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "llama-fake", messages: [{ role: "user", content: "hi" }], ...body }),
  });
}

test("/api/chat streams NDJSON by default: pieces with done: false, then done: true with the counts", async (t) => {
  const response = await chat(t, {}, [
    { content: "Hi 世界", reasoning: "hmm", tool_calls: [{ name: "ls", arguments: { path: "/a" } }] },
  ]);
  assert.equal(response.headers.get("content-type"), "application/x-ndjson");
  const lines = (await response.text())
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  const last = lines.at(-1)!;
  assert.equal(last.done, true);
  assert.equal(last.done_reason, "stop");
  assert.ok(last.prompt_eval_count > 0 && last.eval_count > 0);
  const pieces = lines.slice(0, -1);
  assert.ok(pieces.every((line) => line.done === false && line.message.role === "assistant"));
  assert.equal(pieces.map((line) => line.message.thinking ?? "").join(""), "hmm");
  assert.equal(pieces.map((line) => line.message.content).join(""), "Hi 世界");
  const calls = pieces.flatMap((line) => line.message.tool_calls ?? []);
  assert.deepEqual(calls, [{ function: { name: "ls", arguments: { path: "/a" } } }], "tool calls come whole");
});

test("stream: false answers one JSON object; an error is { error } with its status", async (t) => {
  const whole = (await (await chat(t, { stream: false })).json()) as any;
  assert.deepEqual(
    { done: whole.done, content: whole.message.content, thinking: whole.message.thinking },
    { done: true, content: "Hi 世界", thinking: "hmm" },
  );
  const failed = await chat(t, {}, [{ status: 404, error: { message: 'model "x" not found, try pulling it first' } }]);
  assert.equal(failed.status, 404);
  assert.deepEqual(await failed.json(), { error: 'model "x" not found, try pulling it first' });
});
