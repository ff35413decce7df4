import assert from "node:assert/strict";
import { before, test } from "node:test";
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatOpenAI } from "@langchain/openai";
import { parseConfigText } from "../config/load-config.js";
import { ConfigError } from "../errors.js";
import { loadChatModelProviders } from "./chat-model-providers.js";
import { createChatModel } from "./create-chat-model.js";
import { DemoChatModel } from "./demo-model.js";
import { selectModel } from "./select-model.js";

const configured = parseConfigText(
  "models:\n  - {name: fast, use: openai, model: gpt-4o-mini, base_url: 'http://127.0.0.1:9/v1'}\n  - {name: deep, use: openai, model: o3, supports_thinking: true, when_thinking_enabled: {reasoning: {effort: high}}}\n",
  { source: "config.yaml", env: {} },
);
const empty = parseConfigText("", { source: null, env: {} });

before(() => loadChatModelProviders([{ use: "openai" }, { use: "anthropic" }]));

test("the first configured model is the default; model_name picks another", () => {
  assert.equal(selectModel(configured, {}, {}).entry.name, "fast");
  assert.equal(selectModel(configured, { modelName: "deep" }, {}).entry.name, "deep");
});

test("an unknown model name lists the configured ones", () => {
  assert.throws(
    () => selectModel(configured, { modelName: "gpt-5" }, {}),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.code === "model_unknown" &&
      /Configured models: fast, deep/.test(error.message),
  );
});

test("thinking on a model without supports_thinking is turned off with a warning", () => {
  const selection = selectModel(configured, { modelName: "fast", thinkingEnabled: true }, {});
  assert.equal(selection.thinkingEnabled, false);
  assert.match(selection.warnings[0]!, /does not support thinking/);
  assert.equal(selectModel(configured, { modelName: "deep", thinkingEnabled: true }, {}).thinkingEnabled, true);
});

test("with no models, the environment decides: OpenAI, then Anthropic, then demo", () => {
  const openai = selectModel(
    empty,
    {},
    { OPENAI_API_KEY: "sk", OPENAI_BASE_URL: "http://127.0.0.1:1/v1", OPENAI_MODEL: "qwen3" },
  );
  assert.deepEqual(
    [openai.entry.use, openai.entry.model, openai.entry.base_url],
    ["openai", "qwen3", "http://127.0.0.1:1/v1"],
  );
  assert.match(openai.reason, /OPENAI_API_KEY/);
  assert.equal(selectModel(empty, {}, { ANTHROPIC_API_KEY: "a" }).entry.use, "anthropic");
  const demo = selectModel(empty, {}, {});
  assert.equal(demo.entry.use, "demo");
  assert.match(demo.reason, /demo model/);
});

test("createChatModel builds instances, never provider strings", () => {
  const model = createChatModel(configured.models[0]!);
  assert.ok(model instanceof ChatOpenAI);
  assert.equal((model as ChatOpenAI).model, "gpt-4o-mini");
  assert.equal((model as ChatOpenAI).clientConfig.baseURL, "http://127.0.0.1:9/v1");
  assert.ok(
    createChatModel({
      name: "c",
      use: "anthropic",
      model: "claude",
      api_key: "x",
      supports_thinking: false,
      supports_vision: false,
    }) instanceof ChatAnthropic,
  );
  assert.ok(
    createChatModel({ name: "d", use: "demo", supports_thinking: false, supports_vision: false }) instanceof
      DemoChatModel,
  );
});

test("when_thinking_enabled is merged into the constructor options only with thinking on", () => {
  const on = createChatModel(configured.models[1]!, { thinkingEnabled: true }) as ChatOpenAI;
  const off = createChatModel(configured.models[1]!, { thinkingEnabled: false }) as ChatOpenAI;
  assert.deepEqual(on.reasoning, { effort: "high" });
  assert.equal(off.reasoning, undefined);
});

test("an openai entry without model: fails with advice", () => {
  assert.throws(
    () => createChatModel({ name: "x", use: "openai", supports_thinking: false, supports_vision: false }),
    /has no "model:" key/,
  );
});
