import assert from "node:assert/strict";
import { test } from "node:test";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { exportConversation, exportFileName, transcriptOf } from "./export-conversation.js";
import { mergeHistory } from "./format-history.js";

const entries = mergeHistory(
  [],
  [
    new HumanMessage({
      id: "h1",
      content: "<current_uploads>a.txt</current_uploads>\nSummarise a.txt",
      additional_kwargs: { original_user_content: "Summarise a.txt" },
    }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "read_file", args: {} }] }),
    new ToolMessage({ tool_call_id: "c1", content: "file text" }),
    new HumanMessage({ id: "m", content: "memory", additional_kwargs: { hide_from_ui: true } }),
    new AIMessage({ id: "a2", content: [{ type: "text", text: "It says hello." }] }),
  ],
);

test("the transcript keeps what the user saw: typed questions and answers, no tools or hidden messages", () => {
  assert.deepEqual(transcriptOf(entries), [
    { role: "user", id: "h1", content: "Summarise a.txt" },
    { role: "assistant", id: "a2", content: "It says hello." },
  ]);
});

test("Markdown and JSON exports, and a safe file name", () => {
  const now = new Date("2026-01-02T03:04:05Z");
  const thread = { threadId: "t1", title: "Notes: a/b", createdAt: "2026-01-01T00:00:00Z" };
  assert.equal(
    exportConversation(thread, entries, "md", now),
    "# Notes: a/b\n\n*Exported 2026-01-02T03:04:05.000Z · started 2026-01-01T00:00:00Z · thread t1*\n\n---\n\n## User\n\nSummarise a.txt\n\n---\n\n## Assistant\n\nIt says hello.\n",
  );
  assert.deepEqual(JSON.parse(exportConversation(thread, entries, "json", now)), {
    title: "Notes: a/b",
    thread_id: "t1",
    created_at: "2026-01-01T00:00:00Z",
    exported_at: "2026-01-02T03:04:05.000Z",
    messages: [
      { type: "human", id: "h1", content: "Summarise a.txt" },
      { type: "ai", id: "a2", content: "It says hello." },
    ],
  });
  assert.equal(exportFileName("Notes: a/b", "md"), "Notes ab.md");
  assert.equal(exportFileName("深度 研究", "json"), "深度 研究.json");
  assert.equal(exportFileName("///", "md"), "conversation.md");
  assert.equal(exportFileName(null, "json"), "conversation.json");
});
