import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { formatHistory, mergeHistory } from "./format-history.js";
import { createHistoryArchive } from "./history-archive.js";
import { createTempHome } from "../testing/temp-home.js";

function tempDb(): { file: string; cleanup: () => void } {
  const dir = createTempHome({ prefix: "deerflow-history-" });
  return { file: path.join(dir.path, "checkpoints.sqlite"), cleanup: dir.cleanup };
}

const info = (summary: string) => ({ compactedAt: "2026-01-02T03:04:05.000Z", summary });

test("appended messages come back in order, as messages, with a marker after each batch", (t) => {
  const { file, cleanup } = tempDb();
  t.after(cleanup);
  const archive = createHistoryArchive(file);
  t.after(() => archive.close());
  const call = new AIMessage({
    id: "a1",
    content: "",
    tool_calls: [{ id: "c1", name: "bash", args: { command: "ls" } }],
  });
  assert.equal(archive.append("t1", [new HumanMessage({ id: "h1", content: "list files" }), call], info("first")), 2);
  assert.equal(
    archive.append(
      "t1",
      [new ToolMessage({ id: "r1", content: "a.txt", tool_call_id: "c1", name: "bash" })],
      info("second"),
    ),
    1,
  );
  archive.append("other", [new HumanMessage({ id: "x", content: "other thread" })], info("x"));

  const entries = archive.read("t1");
  assert.deepEqual(
    entries.map((e) => (e.kind === "message" ? e.message.id : `marker:${e.summary}:${e.messageCount}`)),
    ["h1", "a1", "marker:first:2", "r1", "marker:second:1"],
  );
  const revived = entries[1]!;
  assert.ok(revived.kind === "message" && revived.message instanceof AIMessage);
  assert.deepEqual(revived.message.tool_calls?.[0]?.args, { command: "ls" });
  assert.deepEqual(archive.read("unknown"), []);
});

test("re-appending an already archived message is a no-op without a marker", (t) => {
  const { file, cleanup } = tempDb();
  t.after(cleanup);
  const archive = createHistoryArchive(file);
  t.after(() => archive.close());
  archive.append("t", [new HumanMessage({ id: "h1", content: "hi" })], info("s1"));
  assert.equal(archive.append("t", [new HumanMessage({ id: "h1", content: "hi" })], info("s2")), 0);
  assert.equal(archive.read("t").length, 2);
});

test("the archive shares the checkpointer's SQLite file and survives reopening", async (t) => {
  const { file, cleanup } = tempDb();
  t.after(cleanup);
  const saver = SqliteSaver.fromConnString(file);
  const archive = createHistoryArchive(file);
  archive.append("t", [new HumanMessage({ id: "h1", content: "kept forever" })], info("s"));
  await saver.getTuple({ configurable: { thread_id: "t" } }); // the checkpointer still works on the same file
  archive.close();
  const reopened = createHistoryArchive(file);
  t.after(() => reopened.close());
  assert.equal(reopened.read("t").length, 2);
});

test("formatHistory prints the archive, a compaction marker, then the live messages once", () => {
  const archived = [
    { kind: "message" as const, seq: 1, message: new HumanMessage({ id: "h1", content: "first question" }) },
    { kind: "message" as const, seq: 2, message: new AIMessage({ id: "a1", content: "first answer" }) },
    { kind: "message" as const, seq: 3, message: new HumanMessage({ id: "h2", content: "second question" }) },
    { kind: "compaction" as const, seq: 4, compactedAt: "2026-01-02T03:04:05.000Z", summary: "S", messageCount: 3 },
  ];
  // h2 was the current request: archived and also still in the checkpoint.
  const live = [
    new HumanMessage({ id: "h2", content: "second question" }),
    new AIMessage({ id: "a2", content: "second answer" }),
  ];
  const text = formatHistory(mergeHistory(archived, live));
  assert.equal(
    text,
    [
      "user: first question",
      "assistant: first answer",
      "user: second question",
      "──── compacted 3 messages at 2026-01-02T03:04:05.000Z ────",
      "assistant: second answer",
    ].join("\n\n"),
  );
  assert.match(formatHistory(archived, { showSummaries: true }), /────\nsummary: S/);
});
