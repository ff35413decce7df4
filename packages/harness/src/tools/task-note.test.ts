import assert from "node:assert/strict";
import { test } from "node:test";
import type { ToolMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import { createTaskNoteTool, TASK_NOTE_MAX_CHARS } from "./task-note.js";

const call = (note: string) =>
  createTaskNoteTool(() => new Date("2026-01-01T00:00:00.000Z")).invoke({
    id: "call_1",
    name: "task_note",
    args: { note },
    type: "tool_call",
  }) as Promise<Command | ToolMessage>;

test("task_note writes one note to task_notes and confirms it", async () => {
  const out = (await call(" Decided:\n use Postgres ")) as Command;
  const update = out.update as { task_notes: unknown[]; messages: ToolMessage[] };
  assert.deepEqual(update.task_notes, [
    { id: "call_1", text: "Decided: use Postgres", created_at: "2026-01-01T00:00:00.000Z" },
  ]);
  assert.match(String(update.messages[0]!.content), /^Noted\./);
});

test("an empty or over-long note is an error result saying what to do", async () => {
  const empty = (await call("  ")) as ToolMessage;
  assert.equal(empty.status, "error");
  assert.match(String(empty.content), /needs the note's text/);
  const long = (await call("x".repeat(TASK_NOTE_MAX_CHARS + 1))) as ToolMessage;
  assert.match(String(long.content), /at most 500\. Write the essentials only/);
});
