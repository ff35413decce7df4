import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { boundText, formatTaskResultText, sha256Hex, taskResultMetadata } from "./status-contract.js";

test("the model-facing text for every status", () => {
  assert.equal(formatTaskResultText({ status: "completed", result: "42" }), "Task Succeeded. Result: 42");
  assert.equal(
    formatTaskResultText({ status: "completed", result: "part", stopReason: "turn_capped" }),
    "Task Succeeded (capped: turn budget). Result: part",
  );
  assert.equal(formatTaskResultText({ status: "failed" }), "Task failed.");
  assert.equal(formatTaskResultText({ status: "failed", error: "boom" }), "Task failed. Error: boom");
  assert.equal(
    formatTaskResultText({ status: "failed", error: "no answer", stopReason: "turn_capped" }),
    "Task failed (capped: turn budget). Error: no answer",
  );
  assert.equal(
    formatTaskResultText({ status: "completed", result: "part", stopReason: "token_capped" }),
    "Task Succeeded (capped: token budget). Result: part",
  );
  assert.equal(
    formatTaskResultText({ status: "failed", error: "stuck", stopReason: "loop_capped" }),
    "Task failed (capped: repeated tool-call loop). Error: stuck",
  );
  assert.equal(formatTaskResultText({ status: "timed_out" }), "Task timed out.");
  assert.equal(formatTaskResultText({ status: "timed_out", error: "slow" }), "Task timed out. Error: slow");
  assert.equal(formatTaskResultText({ status: "cancelled" }), "Task cancelled by user.");
});

test("boundText keeps short text and cuts long text to 2000 characters around a marker", () => {
  assert.equal(boundText("short"), "short");
  const long = `${"h".repeat(3000)}${"t".repeat(3000)}`;
  const bounded = boundText(long);
  assert.ok(bounded.length <= 2000);
  assert.ok(bounded.startsWith("h".repeat(900)) && bounded.endsWith("t".repeat(900)));
  assert.match(bounded, /\[\.\.\. \d+ characters omitted \.\.\.\]/);
  const omitted = Number(/(\d+) characters omitted/.exec(bounded)?.[1]);
  assert.equal(
    bounded.length - bounded.match(/\n\[.*\]\n/)![0].length + omitted,
    long.length,
    "the marker counts exactly what was cut",
  );
});

test("boundText never exceeds its cap, however small", () => {
  const text = "A".repeat(100);
  assert.equal(boundText(text, 0), "");
  assert.equal(boundText(text, 1), "A");
  for (const cap of [5, 15, 30, 35, 60]) assert.ok(boundText(text, cap).length <= cap, `cap ${cap}`);
});

test("an empty result has no brief or hash, and a blank error is left out", () => {
  for (const result of [undefined, "", "  \n "]) {
    assert.deepEqual(taskResultMetadata({ status: "completed", result }), { subagent_status: "completed" });
  }
  for (const error of [undefined, "", "   "]) {
    assert.deepEqual(taskResultMetadata({ status: "failed", error }), { subagent_status: "failed" });
  }
  assert.equal(taskResultMetadata({ status: "failed", error: "  boom \n" }).subagent_error, "boom");
});

// The fixture is DeerFlow's contracts/subagent_status_contract.json (v2), copied verbatim.
test("metadata follows subagent_status_contract.json v2", () => {
  const fixture = JSON.parse(
    readFileSync(
      fileURLToPath(new URL("../../test/subagents/fixtures/subagent_status_contract.json", import.meta.url)),
      "utf8",
    ),
  ) as { valid_status_values: string[]; valid_stop_reason_values: string[] };
  const full = "x".repeat(5000);
  const completed = taskResultMetadata(
    {
      status: "completed",
      result: full,
      stopReason: "turn_capped",
      tokenUsage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
    },
    "qwen3",
  );
  assert.ok(fixture.valid_status_values.includes(completed.subagent_status));
  assert.ok(fixture.valid_stop_reason_values.includes(completed.subagent_stop_reason!));
  assert.ok(completed.subagent_result_brief!.length <= 2000);
  assert.match(completed.subagent_result_sha256!, /^[0-9a-f]{64}$/);
  assert.equal(completed.subagent_result_sha256, sha256Hex(full));
  assert.deepEqual(completed.subagent_token_usage, { input_tokens: 1, output_tokens: 2, total_tokens: 3 });
  assert.equal(completed.subagent_model_name, "qwen3");
  assert.equal(completed.subagent_error, undefined);

  const failed = taskResultMetadata({ status: "failed", error: "e".repeat(3000) });
  assert.deepEqual(Object.keys(failed).sort(), ["subagent_error", "subagent_status"]);
  assert.ok(failed.subagent_error!.length <= 2000);
  for (const status of ["failed", "cancelled", "timed_out"] as const) {
    assert.ok(fixture.valid_status_values.includes(taskResultMetadata({ status }).subagent_status));
  }
  assert.deepEqual(taskResultMetadata({ status: "cancelled" }), { subagent_status: "cancelled" });
});
