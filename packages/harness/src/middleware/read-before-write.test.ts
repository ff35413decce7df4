import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { HumanMessage, ToolMessage, createAgent } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { latestReadMark, readBeforeWriteMiddleware } from "./read-before-write.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { createTestSandbox } from "../testing/sandbox.js";
import { threadPaths } from "../sandbox/virtual-paths.js";

const mark = (id: string, file: string, sha256: string) =>
  new ToolMessage({ content: "x", tool_call_id: id, additional_kwargs: { read_mark: { path: file, sha256 } } });

test("latestReadMark returns the newest mark of that path and ignores other paths and messages", () => {
  const messages = [
    mark("r1", "/mnt/user-data/workspace/a.md", "old"),
    new HumanMessage("hi"),
    mark("r2", "/mnt/user-data/workspace/b.md", "bbb"),
    mark("r3", "/mnt/user-data/workspace/a.md", "new"),
    new ToolMessage({ content: "no mark", tool_call_id: "r4" }),
  ];
  assert.equal(latestReadMark(messages, "/mnt/user-data/workspace/a.md"), "new");
  assert.equal(latestReadMark(messages, "/mnt/user-data/workspace/b.md"), "bbb");
  assert.equal(latestReadMark(messages, "/mnt/user-data/workspace/c.md"), undefined);
});

test("an existing file is written only after it was read; new files and the agent's own writes pass", async (t) => {
  const kit = createTestSandbox({ threadId: "rbw" });
  t.after(() => kit.cleanup());
  const workspace = threadPaths(kit.home, "rbw").workspace_path;
  fs.writeFileSync(path.join(workspace, "report.md"), "# Report\nSection 1\n");
  const report = "/mnt/user-data/workspace/report.md";
  const fresh = "/mnt/user-data/workspace/new.md";
  const write = (file: string, content: string) => ({
    tool_calls: [{ name: "write_file", args: { description: "w", path: file, content } }],
  });
  const model = new ScriptedChatModel([
    write(report, "overwritten blind"),
    { tool_calls: [{ name: "str_replace", args: { description: "e", path: report, old_str: "1", new_str: "one" } }] },
    write(fresh, "v1"),
    write(fresh, "v2"),
    { tool_calls: [{ name: "read_file", args: { description: "r", path: report } }] },
    { tool_calls: [{ name: "str_replace", args: { description: "e", path: report, old_str: "1", new_str: "one" } }] },
    write(report, "# Report\nSection one\nSection 2\n"),
    { content: "done" },
  ]);
  const agent = createAgent({
    model,
    tools: kit.tools,
    middleware: [readBeforeWriteMiddleware({ provider: kit.provider })],
    checkpointer: new MemorySaver(),
  });
  const out = await agent.invoke({ messages: [new HumanMessage("edit")] }, { configurable: { thread_id: "rbw" } });
  model.assertDone();
  const results = out.messages.filter((message) => ToolMessage.isInstance(message));
  assert.match(
    results[0]!.text,
    /^Error: write_file was refused: \/mnt\/user-data\/workspace\/report.md already exists/,
  );
  assert.equal(results[0]!.status, "error");
  assert.match(results[1]!.text, /^Error: str_replace was refused: .*Call read_file on it first/);
  assert.deepEqual(
    [2, 3, 5, 6].map((index) => results[index]!.text),
    ["OK", "OK", "OK", "OK"],
  );
  assert.match(results[4]!.text, /Section 1/);
  assert.equal(fs.readFileSync(path.join(workspace, "report.md"), "utf8"), "# Report\nSection one\nSection 2\n");
  assert.equal(fs.readFileSync(path.join(workspace, "new.md"), "utf8"), "v2");
});

test("a file changed after it was read (by bash, a subagent, the user) has to be read again", async (t) => {
  const kit = createTestSandbox({ threadId: "rbw2" });
  t.after(() => kit.cleanup());
  const host = path.join(threadPaths(kit.home, "rbw2").workspace_path, "notes.md");
  fs.writeFileSync(host, "first\n");
  const notes = "/mnt/user-data/workspace/notes.md";
  const model = new ScriptedChatModel([
    { tool_calls: [{ name: "read_file", args: { description: "r", path: notes } }] },
    { tool_calls: [{ name: "bash", args: { description: "b", command: `echo second >> ${notes}` } }] },
    { tool_calls: [{ name: "write_file", args: { description: "w", path: notes, content: "replaced" } }] },
    { content: "done" },
  ]);
  const agent = createAgent({
    model,
    tools: kit.tools,
    middleware: [readBeforeWriteMiddleware({ provider: kit.provider })],
    checkpointer: new MemorySaver(),
  });
  const out = await agent.invoke({ messages: [new HumanMessage("x")] }, { configurable: { thread_id: "rbw2" } });
  model.assertDone();
  const results = out.messages.filter((message) => ToolMessage.isInstance(message));
  assert.match(results[2]!.text, /^Error: write_file was refused/);
  assert.equal(fs.readFileSync(host, "utf8"), "first\nsecond\n");
});
