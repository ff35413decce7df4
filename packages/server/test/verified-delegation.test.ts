/**
 * Verified delegation through the official SDK (issue 26 part 2): the runtime's check of a subagent's
 * report reaches the stream as a `task_verified` custom event, the task result carries it, and the
 * criterion the report left unmet is in the thread's state.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { collect, startTestServer } from "./helpers.js";

test("a report citing a receipt that does not exist is flagged on the stream and in the thread", async () => {
  const t = await startTestServer({
    yaml: "subagents: {enabled: true}",
    script: (body) => {
      const all = JSON.stringify(body.messages);
      if (all.includes("You are a subagent")) {
        if (body.messages.some((message) => message.role === "tool"))
          return {
            content:
              "Listed the workspace [r1]. Checked notes.md [r5].\n\nAcceptance:\nC1: unmet - notes.md is missing",
          };
        return { tool_calls: [{ name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } }] };
      }
      if (body.messages.some((message) => message.role === "tool")) return { content: "The notes are still missing." };
      return {
        tool_calls: [
          {
            name: "task",
            arguments: {
              description: "Look around",
              prompt: "List the workspace",
              subagent_type: "general-purpose",
              acceptance_criteria: ["notes.md exists"],
            },
          },
        ],
      };
    },
  });
  try {
    const thread = await t.client.threads.create();
    const parts = await collect(
      t.client.runs.stream(thread.thread_id, "lead_agent", {
        input: { messages: [{ role: "user", content: "delegate" }] },
        streamMode: ["custom"],
        context: { subagent_enabled: true },
      }),
    );
    const custom = parts.filter((part) => part.event === "custom").map((part) => part.data as { type: string });
    const verified = custom.find((event) => event.type === "task_verified") as
      | { receipts: number; flags: { kind: string; detail: string }[]; criteria: { status: string }[] }
      | undefined;
    assert.ok(verified, JSON.stringify(custom.map((event) => event.type)));
    assert.equal(verified.receipts, 1);
    assert.deepEqual(verified.flags, [{ kind: "unknown_citation", detail: "r5" }]);
    assert.deepEqual(
      verified.criteria.map((check) => check.status),
      ["unmet"],
    );
    assert.deepEqual(
      custom.filter((event) => event.type !== "task_running").map((event) => event.type),
      ["task_started", "task_verified", "task_completed"],
    );

    const state = await t.client.threads.getState<{
      messages: { type: string; name?: string; content: string; additional_kwargs?: Record<string, unknown> }[];
      acceptance_gaps: { criterion: string; status: string }[];
      tool_receipts: unknown[];
    }>(thread.thread_id);
    const result = state.values.messages.find((message) => message.type === "tool" && message.name === "task");
    assert.ok(result, "the task result is in the thread");
    assert.match(String(result.content), /FLAG: the report cites r5/);
    assert.deepEqual(
      (result.additional_kwargs as { subagent_verification: { flags: unknown[] } }).subagent_verification.flags,
      [{ kind: "unknown_citation", detail: "r5" }],
    );
    assert.deepEqual(
      state.values.acceptance_gaps.map((gap) => [gap.criterion, gap.status]),
      [["notes.md exists", "unmet"]],
    );
  } finally {
    await t.close();
  }
});
