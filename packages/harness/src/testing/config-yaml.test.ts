import { test } from "node:test";
import assert from "node:assert/strict";
import { parseConfigText } from "../config/load-config.js";
import { fakeModelConfig } from "./config-yaml.js";

test("fakeModelConfig is a valid config with the fake model, the local sandbox, no memory, titles or suggestions", () => {
  const config = parseConfigText(fakeModelConfig("http://127.0.0.1:9/v1", "summarization: {enabled: false}"), {
    source: null,
    env: {},
  });
  assert.deepEqual(
    config.models.map((model) => [model.name, model.use, model.base_url, model.max_retries]),
    [["fake", "openai", "http://127.0.0.1:9/v1", 0]],
  );
  assert.equal(config.sandbox.use, "local");
  assert.equal(config.memory.enabled, false);
  assert.equal(config.title.enabled, false);
  assert.equal(config.suggestions.enabled, false);
  assert.equal(config.summarization.enabled, false);
});
