import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { createTestSandbox } from "../testing/sandbox.js";
import { AUDIT_COMMAND_MAX_CHARS, auditEntry, type BashAuditEntry, bashAuditPath } from "./bash-audit.js";

const readLog = (home: string): BashAuditEntry[] =>
  fs
    .readFileSync(bashAuditPath(home), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

test("every bash command is appended to {home}/logs/bash-audit.jsonl with thread, run, exit code and duration", async (t) => {
  const kit = createTestSandbox({ threadId: "audited" });
  t.after(() => kit.cleanup());
  assert.equal(await kit.text("bash", { description: "b", command: "echo hi" }), "hi\n");
  await kit.text("bash", { description: "b", command: "exit 3" });
  assert.match(await kit.text("bash", { description: "b", command: "cat /etc/hostname" }), /^Error: Access denied/);
  const bash = kit.tools.find((candidate) => candidate.name === "bash")!;
  await bash.invoke({ name: "bash", args: { description: "b", command: "true" }, id: "c9", type: "tool_call" }, {
    configurable: { thread_id: "audited", run_id: "run-7" },
    toolCallId: "c9",
  } as never);

  const entries = readLog(kit.home);
  assert.deepEqual(
    entries.map(({ thread_id, run_id, command, exit_code, refused }) => ({
      thread_id,
      run_id,
      command,
      exit_code,
      refused,
    })),
    [
      { thread_id: "audited", run_id: null, command: "echo hi", exit_code: 0, refused: undefined },
      { thread_id: "audited", run_id: null, command: "exit 3", exit_code: 3, refused: undefined },
      {
        thread_id: "audited",
        run_id: null,
        command: "cat /etc/hostname",
        exit_code: null,
        refused: entries[2]!.refused,
      },
      { thread_id: "audited", run_id: "run-7", command: "true", exit_code: 0, refused: undefined },
    ],
  );
  assert.match(entries[2]!.refused!, /Access denied: \/etc\/hostname/);
  for (const entry of entries) {
    assert.ok(Number.isInteger(entry.duration_ms) && entry.duration_ms >= 0);
    assert.ok(!Number.isNaN(Date.parse(entry.timestamp)));
  }
  assert.equal(fs.statSync(bashAuditPath(kit.home)).mode & 0o777, 0o600);
});

test("a timed-out command is recorded as such; a very long command is cut with its length kept", async (t) => {
  const kit = createTestSandbox({ threadId: "slow", bashTimeoutSeconds: 1 });
  t.after(() => kit.cleanup());
  await kit.text("bash", { description: "b", command: "sleep 5" });
  const [entry] = readLog(kit.home);
  assert.equal(entry!.timed_out, true);
  assert.equal(entry!.exit_code, null);

  const long = auditEntry({
    timestamp: "",
    thread_id: null,
    run_id: null,
    command: "x".repeat(20_000),
    exit_code: 0,
    duration_ms: 1,
  });
  assert.equal(long.command.length, AUDIT_COMMAND_MAX_CHARS + 1);
  assert.equal(long.command_chars, 20_000);
});
