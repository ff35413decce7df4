import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { mergeDelegations } from "../../state/reducers.js";
import type { DelegationEntry } from "../../state/shapes.js";
import {
  changedDelegations,
  currentRunMessages,
  extractDelegations,
  readSubagentMetadata,
} from "./delegation-capture.js";

/** DeerFlow's subagent status contract v2 (subagent_status_contract.json), the values a `task` result may carry. */
const contract = {
  valid_status_values: ["completed", "failed", "cancelled", "timed_out", "polling_timed_out"],
  valid_stop_reason_values: ["token_capped", "turn_capped", "loop_capped"],
};
const NOW = "2026-01-01T00:00:00.000Z";
const sha = "a".repeat(64);

const dispatch = (id: string, description: string, subagent_type = "general-purpose") =>
  new AIMessage({
    content: "",
    tool_calls: [{ id, name: "task", args: { description, prompt: `do ${description}`, subagent_type } }],
  });
const taskResult = (id: string, kwargs: Record<string, unknown>, content = "Task Succeeded. Result: whatever") =>
  new ToolMessage({ id: `tm-${id}`, content, tool_call_id: id, name: "task", additional_kwargs: kwargs });

test("every status and stop reason of the contract fixture is read", () => {
  for (const status of contract.valid_status_values)
    assert.equal(readSubagentMetadata({ subagent_status: status }).status, status);
  for (const reason of contract.valid_stop_reason_values) {
    assert.equal(
      readSubagentMetadata({ subagent_status: "completed", subagent_stop_reason: reason }).stopReason,
      reason,
    );
  }
  assert.deepEqual(
    readSubagentMetadata({ subagent_status: "done", subagent_stop_reason: "bored", subagent_result_sha256: "xyz" }),
    {
      brief: undefined,
      error: undefined,
    },
  );
  assert.deepEqual(readSubagentMetadata({ subagent_status: "max_turns_reached", subagent_result_brief: "partial" }), {
    brief: "partial",
    error: undefined,
    status: "completed",
    stopReason: "turn_capped",
  });
});

test("a dispatched task is in progress until its result carries a status", () => {
  const entries = extractDelegations([new HumanMessage("research"), dispatch("t1", "Research provider A", "bash")], {
    now: NOW,
    runId: "run-1",
  });
  assert.deepEqual(entries, [
    {
      id: "t1",
      description: "Research provider A",
      subagent_type: "bash",
      status: "in_progress",
      created_at: NOW,
      run_id: "run-1",
    },
  ]);
});

test("completed, failed and capped results come from metadata, never from the text", () => {
  const messages = [
    dispatch("t1", "Research A"),
    taskResult(
      "t1",
      { subagent_status: "completed", subagent_result_brief: "A costs $5", subagent_result_sha256: sha },
      "Task failed. (text lies)",
    ),
    dispatch("t2", "Research B"),
    taskResult(
      "t2",
      { subagent_status: "failed", subagent_error: "network down" },
      "Task Succeeded. Result: (text lies)",
    ),
    dispatch("t3", "Research C"),
    taskResult("t3", {
      subagent_status: "completed",
      subagent_stop_reason: "token_capped",
      subagent_result_brief: "partial C",
    }),
    dispatch("t4", "Research D"),
    taskResult("t4", {}, "Task Succeeded. Result: no metadata"),
    dispatch("t5", "Research E"),
    taskResult("t5", { subagent_status: "cancelled" }),
  ];
  const byId = new Map(extractDelegations(messages, { now: NOW }).map((e) => [e.id, e]));
  assert.deepEqual(byId.get("t1"), {
    id: "t1",
    description: "Research A",
    subagent_type: "general-purpose",
    status: "completed",
    created_at: NOW,
    result_brief: "A costs $5",
    result_sha256: sha,
    result_ref: "tm-t1",
  });
  assert.equal(byId.get("t2")!.status, "failed");
  assert.equal(byId.get("t2")!.result_brief, "network down");
  assert.equal(byId.get("t2")!.result_sha256, createHash("sha256").update("network down").digest("hex"));
  assert.equal(byId.get("t3")!.stop_reason, "token_capped");
  assert.equal(byId.get("t4")!.status, "in_progress", "no metadata: the outcome is not guessed from text");
  assert.equal(byId.get("t5")!.result_brief, "Task cancelled by user.");
});

test("an error ToolMessage without metadata marks the task failed; long briefs are bounded", () => {
  const messages = [
    dispatch("t1", "x".repeat(500)),
    new ToolMessage({ content: "Error: tool crashed", tool_call_id: "t1", status: "error" }),
    dispatch("t2", "y"),
    taskResult("t2", { subagent_status: "completed", subagent_result_brief: "z".repeat(5000) }),
  ];
  const [first, second] = extractDelegations(messages, { now: NOW });
  assert.equal(first!.status, "failed");
  assert.equal(first!.description.length, 200);
  assert.ok(second!.result_brief!.length <= 2000);
});

test("only new or changed entries are emitted, and a terminal status is never downgraded", () => {
  const current: DelegationEntry[] = [
    {
      id: "t1",
      description: "A",
      subagent_type: "general-purpose",
      status: "completed",
      created_at: NOW,
      run_id: "run-1",
      result_brief: "done",
      result_sha256: sha,
      result_ref: "tm-t1",
    },
  ];
  const same = { ...current[0]!, run_id: "run-2", created_at: "later" };
  assert.deepEqual(changedDelegations(current, [same]), [], "run_id and created_at of known ids are kept");
  const downgraded = { ...current[0]!, status: "in_progress" as const, result_brief: undefined };
  assert.deepEqual(changedDelegations(current, [downgraded]), []);
  const fresh: DelegationEntry = {
    id: "t2",
    description: "B",
    subagent_type: "bash",
    status: "in_progress",
    created_at: NOW,
  };
  assert.deepEqual(changedDelegations(current, [same, fresh]), [fresh]);
});

test("once the ledger is full, long-evicted delegations do not come back as newest", () => {
  const entry = (i: number): DelegationEntry => ({
    id: `t${i}`,
    description: `d${i}`,
    subagent_type: "general-purpose",
    status: "in_progress",
    created_at: NOW,
  });
  const ledger = mergeDelegations(
    [],
    Array.from({ length: 60 }, (_, i) => entry(i)),
  );
  assert.equal(ledger.length, 50);
  assert.equal(ledger[0]!.id, "t10");
  const extracted = Array.from({ length: 61 }, (_, i) => entry(i));
  assert.deepEqual(
    changedDelegations(ledger, extracted).map((e) => e.id),
    ["t60"],
  );
});

test("a status-only completed result leaves the brief unset; other status-only results keep a canned one", () => {
  const [completed, cancelled] = extractDelegations(
    [
      dispatch("t1", "A"),
      taskResult("t1", { subagent_status: "completed" }, "Task Succeeded. Result: ok"),
      dispatch("t2", "B"),
      taskResult("t2", { subagent_status: "cancelled" }, "misleading"),
    ],
    { now: NOW },
  );
  assert.equal(completed!.status, "completed");
  assert.equal(completed!.result_brief, undefined, "nothing is made up, and the text is not parsed");
  assert.equal(completed!.result_sha256, undefined);
  assert.equal(cancelled!.result_brief, "Task cancelled by user.");
});

test("only tasks after the current run's first human message are captured", () => {
  const human = (content: string, run_id?: string) =>
    new HumanMessage({ content, additional_kwargs: run_id ? { run_id } : {} });
  const messages = [
    human("old request", "run-old"),
    dispatch("old-call", "old work"),
    human("new request", "run-new"),
    dispatch("new-call", "new work"),
    human("an injected reminder"),
    dispatch("later-call", "more work"),
  ];
  const ids = (list: typeof messages, runId?: string) =>
    extractDelegations(currentRunMessages(list, runId), { now: NOW, runId }).map((e) => [e.id, e.run_id]);
  assert.deepEqual(ids(messages, "run-new"), [
    ["new-call", "run-new"],
    ["later-call", "run-new"],
  ]);
  assert.deepEqual(
    ids(messages),
    [["old-call"], ["new-call"], ["later-call"]].map(([id]) => [id, undefined]),
  );
  // A resumed run adds no message of its own: only the last turn can hold its calls.
  assert.deepEqual(ids(messages.slice(0, 4), "run-resumed"), [["new-call", "run-resumed"]]);
});

test("a background task stays in progress when started and ends with the background_tasks result that collects it", () => {
  const started = new ToolMessage({
    content: "Task started in the background (task_id: t1).",
    tool_call_id: "t1",
    name: "task",
    additional_kwargs: { subagent_background: true },
  });
  const listed = new ToolMessage({ content: "Background tasks: …", tool_call_id: "c0", name: "background_tasks" });
  const collected = new ToolMessage({
    id: "tm-c1",
    content: "Background task t1 (Scan): Task Succeeded. Result: found",
    tool_call_id: "c1",
    name: "background_tasks",
    additional_kwargs: {
      background_task_id: "t1",
      subagent_status: "completed",
      subagent_result_brief: "found",
      subagent_result_sha256: sha,
    },
  });
  const base = [new HumanMessage("go"), dispatch("t1", "Scan"), started];
  assert.equal(extractDelegations(base, { now: NOW })[0]?.status, "in_progress");
  const [entry] = extractDelegations([...base, listed, new AIMessage("…"), collected], { now: NOW });
  assert.deepEqual(entry, {
    id: "t1",
    description: "Scan",
    subagent_type: "general-purpose",
    status: "completed",
    created_at: NOW,
    result_brief: "found",
    result_sha256: sha,
    result_ref: "tm-c1",
  });
});
