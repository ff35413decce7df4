/** The defaults config.yaml and the factories share (config/defaults.ts) agree everywhere they are used. */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  LLM_DEFAULTS,
  LOOP_DETECTION_DEFAULTS,
  MEMORY_DEFAULTS,
  SANDBOX_LIMIT_DEFAULTS,
  SUBAGENTS_DEFAULTS,
  TITLE_DEFAULTS,
  UPLOADS_DEFAULTS,
} from "./defaults.js";
import { parseConfigObject } from "./load-config.js";
import { DEFAULT_TOOL_LIMITS } from "../tools/limits.js";
import { DEFAULT_UPLOAD_LIMITS } from "../uploads/save-uploads.js";
import { DEFAULT_CONCURRENT_SUBAGENTS, DEFAULT_TOTAL_SUBAGENTS } from "../subagents/concurrency.js";
import { DEFAULT_TASK_TIMEOUT_SECONDS } from "../tools/task.js";
import { DEFAULT_MODEL_TIMEOUT_SECONDS } from "../model/create-chat-model.js";

test("an empty config.yaml gets exactly the shared defaults, section by section", () => {
  const config = parseConfigObject({}, { source: null, env: {} });
  const sections: [Record<string, unknown>, Readonly<Record<string, unknown>>][] = [
    [config.title, TITLE_DEFAULTS],
    [config.loop_detection, LOOP_DETECTION_DEFAULTS],
    [config.llm_call, LLM_DEFAULTS],
    [config.memory, MEMORY_DEFAULTS],
    [config.subagents, SUBAGENTS_DEFAULTS],
    [config.sandbox, SANDBOX_LIMIT_DEFAULTS],
    [config.uploads, UPLOADS_DEFAULTS],
  ];
  for (const [section, defaults] of sections) {
    for (const [key, value] of Object.entries(defaults)) assert.equal(section[key], value, key);
  }
});

test("the factories' own fallbacks are the same values", () => {
  assert.deepEqual(DEFAULT_TOOL_LIMITS, {
    readFileMaxChars: SANDBOX_LIMIT_DEFAULTS.read_file_output_max_chars,
    lsMaxChars: SANDBOX_LIMIT_DEFAULTS.ls_output_max_chars,
    bashOutputMaxChars: SANDBOX_LIMIT_DEFAULTS.bash_output_max_chars,
    writeFileMaxBytes: SANDBOX_LIMIT_DEFAULTS.write_file_max_bytes,
    globMaxResults: SANDBOX_LIMIT_DEFAULTS.glob_max_results,
    grepMaxResults: SANDBOX_LIMIT_DEFAULTS.grep_max_results,
  });
  assert.deepEqual(DEFAULT_UPLOAD_LIMITS, { maxFiles: UPLOADS_DEFAULTS.max_files, maxFileSize: UPLOADS_DEFAULTS.max_file_size, maxTotalSize: UPLOADS_DEFAULTS.max_total_size });
  assert.equal(DEFAULT_CONCURRENT_SUBAGENTS, SUBAGENTS_DEFAULTS.max_concurrent);
  assert.equal(DEFAULT_TOTAL_SUBAGENTS, SUBAGENTS_DEFAULTS.max_total_per_run);
  assert.equal(DEFAULT_TASK_TIMEOUT_SECONDS, SUBAGENTS_DEFAULTS.timeout_seconds);
  assert.equal(DEFAULT_MODEL_TIMEOUT_SECONDS, LLM_DEFAULTS.timeout_seconds);
});
