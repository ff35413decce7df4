import assert from "node:assert/strict";
import { test } from "node:test";
import { parseConfigText } from "./load-config.js";
import { MAX_DURATION_SECONDS } from "./schema.js";

const parse = (yaml: string) => parseConfigText(yaml, { source: "config.yaml", env: {} });
const tooLong = MAX_DURATION_SECONDS + 1; // 2^31 ms: Node would fire such a timer at once

test("every duration in config is refused past what a timer can wait, naming the key", () => {
  const cases: [string, string][] = [
    [`sandbox: {bash_command_timeout: ${tooLong}}`, "sandbox.bash_command_timeout"],
    [`memory: {debounce_seconds: ${tooLong}}`, "memory.debounce_seconds"],
    [`subagents: {timeout_seconds: ${tooLong}}`, "subagents.timeout_seconds"],
    [`subagents: {agents: {bash: {timeout_seconds: ${tooLong}}}}`, "subagents.agents.bash.timeout_seconds"],
    [`models: [{name: m, use: openai, model: x, timeout: ${tooLong}}]`, "models[0].timeout"],
    [`llm_call: {timeout_seconds: ${tooLong}}`, "llm_call.timeout_seconds"],
    [`llm_call: {title_timeout_seconds: ${tooLong}}`, "llm_call.title_timeout_seconds"],
    [`llm_call: {memory_timeout_seconds: ${tooLong}}`, "llm_call.memory_timeout_seconds"],
    [`llm_call: {retry_after_max_seconds: ${tooLong}}`, "llm_call.retry_after_max_seconds"],
  ];
  for (const [yaml, key] of cases) {
    assert.throws(
      () => parse(yaml),
      (error: Error) => error.message.includes(key) && /at most 2147483 seconds/.test(error.message),
      yaml,
    );
  }
});

test("the longest allowed duration and the llm_call defaults load", () => {
  const config = parse(`sandbox: {bash_command_timeout: ${MAX_DURATION_SECONDS}}`);
  assert.equal(config.sandbox.bash_command_timeout, MAX_DURATION_SECONDS);
  assert.equal(config.llm_call.timeout_seconds, 600);
  assert.equal(config.llm_call.max_retries, 3);
});
