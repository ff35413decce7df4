import assert from "node:assert/strict";
import { test } from "node:test";
import { selectModel } from "../model/select-model.js";
import { parseConfigText } from "./load-config.js";
import { isKnownReasoningModel, supportsThinking } from "./thinking-support.js";

const models = (yaml: string) => parseConfigText(`models:\n${yaml}`, { source: "config.yaml", env: {} }).models;

test("the known reasoning models, with a vendor prefix or an Ollama tag, and their look-alikes that are not", () => {
  for (const id of [
    "deepseek-reasoner",
    "deepseek/deepseek-r1",
    "deepseek-r1:14b",
    "QwQ-32B",
    "qwen3-235b-a22b",
    "qwen/qwen3-8b",
    "o1",
    "o3-mini",
    "o4-mini-2025-04-16",
    "gpt-5",
    "gpt-5-mini",
    "claude-sonnet-4-5",
    "claude-opus-4-1-20250805",
  ])
    assert.equal(isKnownReasoningModel(id), true, id);
  for (const id of [
    "deepseek-chat",
    "qwen2.5-72b",
    "gpt-4o-mini",
    "gpt-5-chat-latest",
    "o200k",
    "claude-3-5-sonnet",
    "claude-haiku-4-5",
  ])
    assert.equal(isKnownReasoningModel(id), false, id);
});

test("supports_thinking when given decides; else thinking:, the demo model, then the model id", () => {
  const r1 = { name: "r1", use: "openai", model: "deepseek-reasoner" };
  assert.equal(supportsThinking(r1), true);
  assert.equal(supportsThinking({ ...r1, supports_thinking: false }), false);
  assert.equal(supportsThinking({ ...r1, thinking: false }), false);
  assert.equal(supportsThinking({ name: "chat", use: "openai", model: "gpt-4o" }), false);
  assert.equal(supportsThinking({ name: "chat", use: "openai", model: "gpt-4o", thinking: true }), true);
  assert.equal(supportsThinking({ name: "chat", use: "openai", model: "gpt-4o", thinking: { type: "enabled" } }), true);
  assert.equal(supportsThinking({ name: "qwen3", use: "ollama" }), true, "the name when there is no model id");
  assert.equal(supportsThinking({ name: "demo", use: "demo" }), true);
});

test("config.yaml: the model list says supports_thinking truthfully, and DeerFlow's thinking: shortcut loads", () => {
  const [plain, reasoner, off, flagged, claude] = models(
    [
      "  - {name: plain, use: openai, model: gpt-4o-mini}",
      "  - {name: reasoner, use: openai, model: deepseek-reasoner}",
      "  - {name: off, use: openai, model: qwen3-8b, supports_thinking: false}",
      "  - {name: flagged, use: openai, model: my-finetune, thinking: true}",
      "  - name: claude",
      "    use: langchain_anthropic:ChatAnthropic",
      "    model: claude-3-5-sonnet",
      "    when_thinking_enabled: {thinking: {type: enabled}, max_tokens: 4096}",
      "    thinking: {budget_tokens: 2048}",
    ].join("\n"),
  );
  assert.deepEqual(
    [plain, reasoner, off, flagged, claude].map((entry) => [entry!.name, entry!.supports_thinking]),
    [
      ["plain", false],
      ["reasoner", true],
      ["off", false],
      ["flagged", true],
      ["claude", true],
    ],
  );
  assert.deepEqual(claude!.when_thinking_enabled, {
    thinking: { type: "enabled", budget_tokens: 2048 },
    max_tokens: 4096,
  });
  assert.equal("thinking" in claude!, false, "the shortcut is folded in, not passed to the provider");
  assert.equal(
    selectModel(
      { ...parseConfigText("", { source: null, env: {} }), models: [reasoner!] },
      { thinkingEnabled: true },
      {},
    ).thinkingEnabled,
    true,
    "a thinking request on a known reasoning model is kept",
  );
});

test("without models in config: the environment's model and the demo model say whether they think", () => {
  const empty = parseConfigText("", { source: null, env: {} });
  assert.equal(selectModel(empty, {}, { OPENAI_API_KEY: "sk", OPENAI_MODEL: "o3-mini" }).entry.supports_thinking, true);
  assert.equal(selectModel(empty, {}, { OPENAI_API_KEY: "sk" }).entry.supports_thinking, false, "gpt-4o-mini");
  assert.equal(selectModel(empty, {}, {}).entry.supports_thinking, true, "demo: DeerFlow's frontend offers plan mode");
});
