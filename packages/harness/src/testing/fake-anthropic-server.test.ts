import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatAnthropic } from "@langchain/anthropic";
import { HumanMessage } from "@langchain/core/messages";
import { startFakeAnthropicServer } from "./fake-anthropic-server.js";
import type { FakeStep } from "./fake-script.js";

async function withServer(t: test.TestContext, script: FakeStep[]) {
  const server = await startFakeAnthropicServer({ script });
  t.after(() => server.close());
  const post = (body: object) =>
    fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "x", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({
        model: "claude-fake",
        max_tokens: 100,
        messages: [{ role: "user", content: "hi" }],
        ...body,
      }),
    });
  return { server, post };
}

function events(text: string): Array<{ event: string; data: Record<string, any> }> {
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((block) => {
      const [event, data] = block.split("\n");
      return { event: event!.replace("event: ", ""), data: JSON.parse(data!.replace("data: ", "")) };
    });
}

test("a stream follows Anthropic's documented event order, with pings and stop_reason in message_delta", async (t) => {
  const { post } = await withServer(t, [
    { reasoning: "hmm", content: "Hello 世界", tool_calls: [{ name: "ls", arguments: { path: "/a" } }] },
  ]);
  const response = await post({ stream: true });
  assert.match(response.headers.get("content-type")!, /^text\/event-stream/);
  const all = events(await response.text());
  const names = all.map((e) => e.event).filter((name) => name !== "content_block_delta");
  assert.deepEqual(names, [
    "message_start",
    "ping",
    "content_block_start",
    "content_block_stop",
    "content_block_start",
    "content_block_stop",
    "content_block_start",
    "content_block_stop",
    "message_delta",
    "message_stop",
  ]);
  assert.ok(
    all.every((e) => e.data.type === e.event),
    "each data.type repeats its event name",
  );
  const starts = all.filter((e) => e.event === "content_block_start").map((e) => e.data.content_block.type);
  assert.deepEqual(starts, ["thinking", "text", "tool_use"]);
  const deltas = (type: string) => all.filter((e) => e.data.delta?.type === type);
  assert.equal(
    deltas("text_delta")
      .map((e) => e.data.delta.text)
      .join(""),
    "Hello 世界",
  );
  assert.ok(deltas("text_delta").length > 1, "text cut into several deltas");
  assert.equal(
    deltas("input_json_delta")
      .map((e) => e.data.delta.partial_json)
      .join(""),
    '{"path":"/a"}',
  );
  assert.equal(deltas("signature_delta").length, 1);
  const end = all.find((e) => e.event === "message_delta")!.data;
  assert.equal(end.delta.stop_reason, "tool_use");
  assert.ok(end.usage.output_tokens > 0);
});

test("non-streamed answers are one message object; errors use Anthropic's error shape and statuses", async (t) => {
  const { post } = await withServer(t, [
    { content: "Hi.", finish_reason: "length" },
    { content: "partial", stream_error: { type: "overloaded_error" } },
    { status: 429 },
  ]);
  const message = (await (await post({})).json()) as any;
  assert.deepEqual(
    { type: message.type, role: message.role, content: message.content, stop_reason: message.stop_reason },
    { type: "message", role: "assistant", content: [{ type: "text", text: "Hi." }], stop_reason: "max_tokens" },
  );
  const overloaded = await post({});
  assert.equal(overloaded.status, 529);
  assert.deepEqual(await overloaded.json(), {
    type: "error",
    error: { type: "overloaded_error", message: "Overloaded" },
  });
  assert.equal(((await (await post({})).json()) as any).error.type, "rate_limit_error");
});

test("an overloaded_error mid-stream ends the stream with an error event, which ChatAnthropic raises", async (t) => {
  const { server, post } = await withServer(t, [
    { content: "partial", stream_error: { type: "overloaded_error" } },
    { content: "partial", stream_error: { type: "overloaded_error" } },
  ]);
  const last = events(await (await post({ stream: true })).text()).at(-1)!;
  assert.deepEqual(last, {
    event: "error",
    data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
  });
  const model = new ChatAnthropic({ model: "claude-fake", apiKey: "x", maxRetries: 0, anthropicApiUrl: server.url });
  await assert.rejects(async () => {
    for await (const _ of await model.stream([new HumanMessage("hi")]));
  }, /Overloaded/);
});
