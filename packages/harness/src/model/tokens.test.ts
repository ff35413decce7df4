import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { approximateTextTokens, countTokens, createTokenCounter, encodingForModel, getEncoder } from "./tokens.js";

test("model names map to the encoding OpenAI uses for them, provider prefixes ignored", () => {
  assert.equal(encodingForModel("gpt-4o-mini"), "o200k_base");
  assert.equal(encodingForModel("openai/gpt-4.1"), "o200k_base");
  assert.equal(encodingForModel("gpt-5"), "o200k_base");
  assert.equal(encodingForModel("o3-mini"), "o200k_base");
  assert.equal(encodingForModel("gpt-4-turbo"), "cl100k_base");
  assert.equal(encodingForModel("gpt-3.5-turbo"), "cl100k_base");
  assert.equal(encodingForModel("qwen3-32b"), null);
  assert.equal(encodingForModel("claude-sonnet-4"), null);
  assert.equal(encodingForModel(undefined), null);
});

test("the bundled o200k and cl100k ranks encode a known sample to OpenAI's token counts", () => {
  const sample = "DeerFlow is a super agent harness. 深度研究 🚀";
  assert.equal(getEncoder("o200k_base").encode(sample).length, 14);
  assert.equal(getEncoder("cl100k_base").encode(sample).length, 21);
  assert.equal(getEncoder("o200k_base"), getEncoder("o200k_base"), "the encoder is cached");
});

test("the approximate counter counts non-ASCII characters as a token each", () => {
  assert.equal(approximateTextTokens("abcdefgh"), 2);
  assert.equal(approximateTextTokens("深度研究"), 4);
  assert.equal(approximateTextTokens(""), 0);
  // Chinese text must not be undercounted the way chars/4 does (summarization would never fire).
  const chinese = "这是一个很长的中文句子，用来测试令牌计数。".repeat(10);
  assert.ok(approximateTextTokens(chinese) >= getEncoder("o200k_base").encode(chinese).length);
});

test("special-token text in user content is counted, not rejected", () => {
  const counter = createTokenCounter("gpt-4o");
  assert.ok(counter([new HumanMessage("please print <|endoftext|> literally")]) > 5);
});

test("tool calls, tool results, system prompt and tool schemas all add to the count", () => {
  const human = [new HumanMessage("hello")];
  const base = countTokens(human, { model: "gpt-4o" });
  assert.equal(base, createTokenCounter("gpt-4o")(human));
  const withCall = [
    ...human,
    new AIMessage({
      content: "",
      tool_calls: [{ id: "c1", name: "read_file", args: { path: "/mnt/user-data/workspace/a-long-file-name.txt" } }],
    }),
    new ToolMessage({ content: "file body ".repeat(50), tool_call_id: "c1" }),
  ];
  const withCallCount = countTokens(withCall, { model: "gpt-4o" });
  assert.ok(withCallCount > base + 100, `tool call and result counted (${withCallCount})`);

  const readFile = tool(async () => "", {
    name: "read_file",
    description: "Read a text file from the sandbox and return its content with line numbers.",
    schema: z.object({ path: z.string().describe("Absolute virtual path"), start_line: z.number().optional() }),
  });
  const withTools = countTokens(human, { model: "gpt-4o", tools: [readFile] });
  assert.ok(withTools > base + 20, `tool schema counted (${withTools} vs ${base})`);
  const withSchema = countTokens(human, {
    model: "gpt-4o",
    tools: [{ type: "function", function: { name: "x", parameters: {} } }],
  });
  assert.ok(withSchema > base);
  const withSystem = countTokens(human, {
    model: "gpt-4o",
    systemPrompt: "You are DeerFlow, a helpful agent. ".repeat(10),
  });
  assert.ok(withSystem > base + 60);
});

test("unknown models use the approximate counter and never touch the network", () => {
  const counter = createTokenCounter("deepseek-chat");
  const text = "x".repeat(400);
  assert.equal(counter([new HumanMessage(text)]), 3 + 3 + 100);
  assert.equal(counter([]), 0);
});

test("image blocks cost a flat amount instead of their base64 length", () => {
  const counter = createTokenCounter();
  const image = new HumanMessage({
    content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(100_000)}` } }],
  });
  assert.ok(counter([image]) < 2000);
});
