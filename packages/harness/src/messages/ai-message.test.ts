import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage } from "@langchain/core/messages";
import { copyAIMessage } from "./ai-message.js";
import { contentText } from "./content.js";

test("copyAIMessage keeps id, name, text, calls and metadata, and replaces only the given fields", () => {
  const answer = new AIMessage({
    id: "ai-1",
    name: "lead",
    content: "working",
    tool_calls: [{ id: "c1", name: "ls", args: { path: "/" }, type: "tool_call" }],
    invalid_tool_calls: [{ id: "c2", name: "bash", args: "{", error: "bad json", type: "invalid_tool_call" }],
    additional_kwargs: { provider: "x" },
    response_metadata: { finish_reason: "tool_calls" },
    usage_metadata: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
  });
  const same = copyAIMessage(answer);
  assert.notEqual(same, answer);
  for (const key of [
    "id",
    "name",
    "content",
    "tool_calls",
    "invalid_tool_calls",
    "additional_kwargs",
    "response_metadata",
    "usage_metadata",
  ] as const) {
    assert.deepEqual(same[key], answer[key], key);
  }
  const changed = copyAIMessage(answer, { tool_calls: [], invalid_tool_calls: [] });
  assert.deepEqual(changed.tool_calls, []);
  assert.deepEqual(changed.invalid_tool_calls, []);
  assert.equal(changed.id, "ai-1");
  assert.deepEqual(changed.usage_metadata, answer.usage_metadata);
});

test("contentText joins the text blocks and drops the rest", () => {
  assert.equal(contentText("plain"), "plain");
  const blocks = [
    { type: "text" as const, text: "a" },
    { type: "image_url" as const, image_url: "data:image/png;base64,AAAA" },
    { type: "text" as const, text: "" },
    { type: "text" as const, text: "b" },
  ];
  assert.equal(contentText(blocks), "ab");
  assert.equal(contentText(blocks, "\n"), "a\nb");
});
