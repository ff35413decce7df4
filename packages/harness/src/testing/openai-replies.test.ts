import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveReply } from "./fake-script.js";
import { completionBody, errorBody, streamChunks } from "./openai-replies.js";

type Chunk = { id: string; choices: Array<{ delta: any; finish_reason: string | null }>; usage?: unknown };

test("tool calls stream as index+id+name first, then arguments in many pieces carrying only the index", () => {
  const reply = resolveReply(
    {
      tool_calls: [
        { name: "a", arguments: { x: 1, y: "two" } },
        { name: "b", id: "call_given" },
      ],
    },
    "m",
    [],
  );
  const chunks = streamChunks(reply) as Chunk[];
  const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
  const heads = toolDeltas.filter((d: any) => d.id);
  assert.deepEqual(
    heads.map((d: any) => [d.index, d.function.name, d.function.arguments]),
    [
      [0, "a", ""],
      [1, "b", ""],
    ],
  );
  assert.equal(heads[1].id, "call_given");
  const pieces = toolDeltas.filter((d: any) => d.index === 0 && !d.id).map((d: any) => d.function.arguments);
  assert.ok(pieces.length > 1, "arguments split over several deltas");
  assert.ok(pieces.every((p: string) => p.length > 0));
  assert.equal(pieces.join(""), JSON.stringify({ x: 1, y: "two" }));
  assert.equal(chunks[0]!.choices[0]!.delta.role, "assistant");
  assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, "tool_calls");
  assert.ok(chunks.every((c) => c.id === reply.id && !("usage" in c)));
});

test("text streams in small pieces cut anywhere and usage comes last, with empty choices, when requested", () => {
  const reply = resolveReply({ content: "one two three", usage: { prompt_tokens: 7 } }, "m", []);
  const chunks = streamChunks(reply, { includeUsage: true }) as Chunk[];
  const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").filter(Boolean);
  assert.equal(text.join(""), "one two three");
  assert.ok(text.length > 3 && text.some((piece) => /^\S+$/.test(piece) && !["one", "two", "three"].includes(piece)));
  const last = chunks.at(-1)!;
  assert.deepEqual(last.choices, []);
  assert.deepEqual(last.usage, { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 });
  assert.ok(chunks.slice(0, -1).every((c) => c.usage === null));
  assert.equal(chunks.at(-2)!.choices[0]!.finish_reason, "stop");
});

test("dialect options: no role in any delta, DeepSeek's reasoning_content, other finish reasons", () => {
  const plain = streamChunks(resolveReply({ content: "hi" }, "m", []), { firstDeltaRole: false }) as Chunk[];
  assert.ok(plain.every((c) => !("role" in c.choices[0]!.delta)));
  const reasoning = streamChunks(resolveReply({ reasoning: "think hard", content: "ok" }, "m", [])) as Chunk[];
  const deltas = reasoning.map((c) => c.choices[0]!.delta);
  assert.deepEqual(deltas[0], { role: "assistant", content: null, reasoning_content: "" });
  assert.equal(deltas.map((d) => d.reasoning_content ?? "").join(""), "think hard");
  assert.ok(deltas.findLastIndex((d) => d.reasoning_content) < deltas.findIndex((d) => d.content));
  const cut = streamChunks(resolveReply({ content: "trunc", finish_reason: "length" }, "m", [])) as Chunk[];
  assert.equal(cut.at(-1)!.choices[0]!.finish_reason, "length");
  assert.equal(
    (completionBody(resolveReply({ reasoning: "r", content: "a" }, "m", [])) as any).choices[0].message
      .reasoning_content,
    "r",
  );
});

test("no_choices sends a 200 with empty choices; stream_error ends the stream with an error object", () => {
  assert.deepEqual((completionBody(resolveReply({ no_choices: true }, "m", [])) as any).choices, []);
  const empty = streamChunks(resolveReply({ content: "x", no_choices: true }, "m", [])) as Chunk[];
  assert.ok(empty.every((c) => c.choices.length === 0));
  const failed = streamChunks(resolveReply({ content: "part", stream_error: { message: "boom" } }, "m", [])) as any[];
  assert.deepEqual(failed.at(-1), { error: { message: "boom", type: "server_error", param: null, code: null } });
  assert.ok(failed.slice(0, -1).every((c) => c.choices[0].finish_reason === null));
});

test("a raw string argument is sent unchanged", () => {
  const reply = resolveReply({ tool_calls: [{ name: "a", arguments: "{broken" }] }, "m", []);
  const body = completionBody(reply) as any;
  assert.equal(body.choices[0].message.tool_calls[0].function.arguments, "{broken");
  assert.equal(body.choices[0].message.content, null);
  assert.equal(body.choices[0].finish_reason, "tool_calls");
});

test("replies get distinct completion and tool call ids", () => {
  const a = resolveReply({ tool_calls: [{ name: "t" }] }, "m", []);
  const b = resolveReply({ tool_calls: [{ name: "t" }] }, "m", []);
  assert.notEqual(a.id, b.id);
  assert.notEqual(a.toolCalls[0]!.id, b.toolCalls[0]!.id);
  assert.match(a.id, /^chatcmpl-/);
  assert.match(a.toolCalls[0]!.id, /^call_/);
});

test("error bodies have OpenAI's four fields and take overrides", () => {
  assert.deepEqual(errorBody(429, { message: "slow" }), {
    error: { message: "slow", type: "requests", param: null, code: "rate_limit_exceeded" },
  });
  assert.equal(errorBody(401).error.code, "invalid_api_key");
  assert.equal(errorBody(503).error.message, "HTTP 503");
});
