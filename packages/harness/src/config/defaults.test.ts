/** The defaults config.yaml and the factories share (config/defaults.ts) agree everywhere they are used. */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as defaults from "./defaults.js";
import { LLM_DEFAULTS, SANDBOX_LIMIT_DEFAULTS, SUBAGENTS_DEFAULTS, UPLOADS_DEFAULTS } from "./defaults.js";
import { parseConfigObject } from "./load-config.js";
import { DEFAULT_TOOL_LIMITS, toolLimitsFrom } from "../tools/limits.js";
import { DEFAULT_UPLOAD_LIMITS } from "../uploads/save-uploads.js";
import { DEFAULT_CONCURRENT_SUBAGENTS, DEFAULT_TOTAL_SUBAGENTS } from "../subagents/concurrency.js";
import { DEFAULT_TASK_TIMEOUT_SECONDS } from "../tools/task.js";
import { DEFAULT_MODEL_TIMEOUT_SECONDS } from "../model/create-chat-model.js";

test("an empty config.yaml gets exactly the shared defaults, section by section", () => {
  const config = parseConfigObject({}, { source: null, env: {} });
  const isSection = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;
  const topLevel = Object.values(config as Record<string, unknown>).filter(isSection);
  // Nested sections too (`subagents.queue`), after the top-level ones.
  const sections = [...topLevel, ...topLevel.flatMap((section) => Object.values(section).filter(isSection))];
  // Every defaults object of defaults.ts, found by its keys in the config section that uses it.
  for (const [name, values] of Object.entries(defaults)) {
    const section = sections.find((candidate) => Object.keys(values).every((key) => key in candidate));
    assert.ok(section, `${name}: no config section has all of ${Object.keys(values).join(", ")}`);
    for (const [key, value] of Object.entries(values)) assert.deepEqual(section[key], value, `${name}.${key}`);
  }
});

test("the factories' own fallbacks are the same values", () => {
  assert.deepEqual(DEFAULT_TOOL_LIMITS, toolLimitsFrom(SANDBOX_LIMIT_DEFAULTS));
  // Each config key reaches its own option (distinct values, so a swapped pair shows).
  const distinct = {
    bash_output_max_chars: 1,
    read_file_output_max_chars: 2,
    ls_output_max_chars: 3,
    write_file_max_bytes: 4,
    glob_max_results: 5,
    grep_max_results: 6,
  };
  assert.deepEqual(toolLimitsFrom(distinct), {
    bashOutputMaxChars: 1,
    readFileMaxChars: 2,
    lsMaxChars: 3,
    writeFileMaxBytes: 4,
    globMaxResults: 5,
    grepMaxResults: 6,
  });
  assert.deepEqual(DEFAULT_UPLOAD_LIMITS, {
    maxFiles: UPLOADS_DEFAULTS.max_files,
    maxFileSize: UPLOADS_DEFAULTS.max_file_size,
    maxTotalSize: UPLOADS_DEFAULTS.max_total_size,
  });
  assert.equal(DEFAULT_CONCURRENT_SUBAGENTS, SUBAGENTS_DEFAULTS.max_concurrent);
  assert.equal(DEFAULT_TOTAL_SUBAGENTS, SUBAGENTS_DEFAULTS.max_total_per_run);
  assert.equal(DEFAULT_TASK_TIMEOUT_SECONDS, SUBAGENTS_DEFAULTS.timeout_seconds);
  assert.equal(DEFAULT_MODEL_TIMEOUT_SECONDS, LLM_DEFAULTS.timeout_seconds);
});
