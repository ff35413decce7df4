import { test } from "node:test";
import assert from "node:assert/strict";
import { createTestSandbox } from "../testing/sandbox.js";
import type { RunProcessResult } from "../sandbox/run-process.js";
import { formatCommandResult } from "./bash.js";

const result = (overrides: Partial<RunProcessResult>): RunProcessResult => ({
  output: "",
  totalChars: 0,
  exitCode: 0,
  exitSignal: null,
  timedOut: false,
  aborted: false,
  ...overrides,
});

test("formatCommandResult: output, empty output, exit codes, timeouts, cancellation", () => {
  assert.equal(formatCommandResult(result({ output: "hi\n" }), 600, "local"), "hi\n");
  assert.equal(formatCommandResult(result({}), 600, "local"), "(no output)");
  assert.equal(formatCommandResult(result({ output: "oops\n", exitCode: 3 }), 600, "local"), "oops\n\n[exit code: 3]");
  const timedOut = formatCommandResult(result({ timedOut: true, exitCode: null, output: "partial" }), 5, "local");
  assert.match(
    timedOut,
    /^Error: Command timed out after 5 seconds .*background.*\nOutput before the timeout:\npartial$/s,
  );
  assert.match(
    formatCommandResult(result({ timedOut: true }), 5, "bwrap"),
    /background processes end with the command/,
  );
  assert.match(formatCommandResult(result({ aborted: true }), 5, "local"), /^Error: the command was cancelled/);
  assert.match(formatCommandResult(result({ spawnError: "ENOENT" }), 5, "local"), /could not be started: ENOENT/);
});

test("bash runs in the workspace, rewrites virtual paths, refuses paths outside", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const bash = (command: string) => kit.text("bash", { description: "b", command });
  assert.equal(
    await bash("echo hello > /mnt/user-data/outputs/h.txt && cat /mnt/user-data/outputs/h.txt && pwd"),
    "hello\n/mnt/user-data/workspace\n",
  );
  assert.match(await bash("cat /etc/hostname"), /^Error: Access denied: \/etc\/hostname is outside the sandbox/);
  assert.match(await bash("false"), /^\(no output\)\n\[exit code: 1\]$/);
});

test("a run without a thread id gets an error text, not an exception", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const tool = kit.tools.find((candidate) => candidate.name === "bash")!;
  const output = await tool.invoke({
    name: "bash",
    args: { description: "b", command: "ls" },
    id: "x1",
    type: "tool_call",
  });
  assert.match(String((output as { content: unknown }).content), /^Error: this run has no thread id/);
});
