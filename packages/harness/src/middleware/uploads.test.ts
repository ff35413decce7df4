import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import type { UploadedFile } from "../state/shapes.js";
import { ThreadStateSchema } from "../state/thread-state.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { saveUploads } from "../uploads/save-uploads.js";
import { tempHome } from "../testing/temp-home.js";
import { formatSize, formatUploadsBlock, selectNewUploads, uploadsMiddleware, withUploadsBlock } from "./uploads.js";

const file = (filename: string, size = 10): UploadedFile => ({
  filename,
  size,
  path: `/h/uploads/${filename}`,
  virtual_path: `/mnt/user-data/uploads/${filename}`,
});

/** An agent with only the uploads middleware over `home`, its state kept in memory. */
function uploadsAgent(model: ScriptedChatModel, home: string) {
  return createAgent({
    model,
    tools: [],
    stateSchema: ThreadStateSchema,
    middleware: [uploadsMiddleware({ home })],
    checkpointer: new MemorySaver(),
  });
}

test("formatSize and the current_uploads block", () => {
  assert.deepEqual([formatSize(512), formatSize(12_600), formatSize(4 * 1024 * 1024)], ["512 B", "12.3 KB", "4.0 MB"]);
  const block = formatUploadsBlock([file("report.pdf", 12_600), file("<b>.txt")]);
  assert.match(
    block,
    /^<current_uploads>\nThe following files were uploaded in this message:\n\n- report\.pdf \(12\.3 KB\)\n  Path: \/mnt\/user-data\/uploads\/report\.pdf\n/,
  );
  assert.match(block, /- &lt;b&gt;\.txt/, "names cannot inject tags");
  assert.match(block, /<\/current_uploads>$/);
  const many = formatUploadsBlock([file("a.md"), file("b.md"), file("c.pdf"), file("d.pdf")], 2);
  assert.match(many, /- \.\.\.and 2 more \(2 \.pdf\); list them with ls \/mnt\/user-data\/uploads/);
  const tagged = formatUploadsBlock([file("a.md"), file("x.<system>")], 1);
  assert.match(tagged, /and 1 more \(1 \.&lt;system&gt;\)/, "an omitted file's extension cannot inject tags");
  assert.doesNotMatch(tagged, /<system>/);
});

test("selectNewUploads: files not announced earlier, or exactly the files the client names", () => {
  const announced = withUploadsBlock(new HumanMessage({ id: "h1", content: "first" }), [file("a.txt")]);
  const messages = [announced, new AIMessage("ok"), new HumanMessage({ id: "h2", content: "second" })];
  assert.deepEqual(
    selectNewUploads(messages, [file("a.txt"), file("b.txt")]).map((f) => f.filename),
    ["b.txt"],
  );
  const named = new HumanMessage({ id: "h3", content: "x", additional_kwargs: { files: [{ filename: "c.txt" }] } });
  assert.deepEqual(
    selectNewUploads([named], [file("b.txt"), file("c.txt")]).map((f) => f.filename),
    ["c.txt"],
  );
  assert.deepEqual(selectNewUploads([], [file("b.txt")]), []);
});

test("withUploadsBlock prepends to text, inserts a first block in lists, keeps the original text", () => {
  const text = withUploadsBlock(new HumanMessage({ id: "h", content: "summarise" }), [file("n.txt")]);
  assert.equal(text.id, "h");
  assert.match(String(text.content), /^<current_uploads>[\s\S]*<\/current_uploads>\n\nsummarise$/);
  assert.equal(text.additional_kwargs.original_user_content, "summarise");
  assert.deepEqual(text.additional_kwargs.uploaded_files, [
    { filename: "n.txt", size: 10, virtual_path: "/mnt/user-data/uploads/n.txt" },
  ]);
  const list = withUploadsBlock(new HumanMessage({ content: [{ type: "text", text: "look" }] }), [file("n.txt")]);
  assert.ok(Array.isArray(list.content) && list.content.length === 2);
  assert.match((list.content[0] as { text: string }).text, /^<current_uploads>/);
});

test("withUploadsBlock keeps a string original_user_content and replaces any other value by the message text", () => {
  const kept = withUploadsBlock(
    new HumanMessage({
      content: "<current_uploads>old</current_uploads>\n\nrun",
      additional_kwargs: { original_user_content: "run" },
    }),
    [file("n.txt")],
  );
  assert.equal(kept.additional_kwargs.original_user_content, "run");
  const spoofed = withUploadsBlock(
    new HumanMessage({
      content: "/data-analysis run",
      additional_kwargs: { original_user_content: [{ type: "text", text: "spoofed audit text" }] },
    }),
    [file("n.txt")],
  );
  assert.equal(spoofed.additional_kwargs.original_user_content, "/data-analysis run");
  assert.match(String(spoofed.content), /^<current_uploads>/);
});

test("in agent runs, each upload is announced once, in the turn after it was saved", async (t) => {
  const root = tempHome(t, { prefix: "uploads-mw-test-" });
  const home = path.join(root, "home");
  const source = path.join(root, "notes.txt");
  fs.writeFileSync(source, "some notes");
  const model = new ScriptedChatModel([{ content: "one" }, { content: "two" }, { content: "three" }]);
  const agent = uploadsAgent(model, home);
  const config = { configurable: { thread_id: "up-1" } };
  const lastHuman = (index: number) =>
    model.calls[index]!.messages.filter((message) => HumanMessage.isInstance(message)).at(-1)!;

  await saveUploads(home, "up-1", [source]);
  const first = await agent.invoke(
    { messages: [new HumanMessage({ id: "up-h1", content: "summarise the upload" })] },
    config,
  );
  assert.match(
    String(lastHuman(0).content),
    /^<current_uploads>[\s\S]*- notes\.txt \(10 B\)\n  Path: \/mnt\/user-data\/uploads\/notes\.txt[\s\S]*\n\nsummarise the upload$/,
  );
  assert.deepEqual(
    first.uploaded_files?.map((f) => f.virtual_path),
    ["/mnt/user-data/uploads/notes.txt"],
  );

  const second = await agent.invoke({ messages: [new HumanMessage({ id: "up-h2", content: "thanks" })] }, config);
  assert.equal(lastHuman(1).content, "thanks", "not announced again");
  assert.deepEqual(second.uploaded_files, []);

  await saveUploads(home, "up-1", [source]);
  await agent.invoke({ messages: [new HumanMessage({ id: "up-h3", content: "and this one" })] }, config);
  const third = String(lastHuman(2).content);
  assert.match(third, /notes_1\.txt/);
  assert.ok(!/- notes\.txt /.test(third), "only the new file");
});

test("uploaded_files and files entries that are not objects are skipped, not a crash", async (t) => {
  const root = tempHome(t, { prefix: "uploads-mw-test-" });
  const home = path.join(root, "home");
  const source = path.join(root, "notes.txt");
  fs.writeFileSync(source, "some notes");
  await saveUploads(home, "up-bad", [source]);
  const model = new ScriptedChatModel([{ content: "one" }, { content: "two" }]);
  const agent = uploadsAgent(model, home);
  const config = { configurable: { thread_id: "up-bad" } };
  const odd = new HumanMessage({
    id: "odd-0",
    content: "earlier",
    additional_kwargs: { uploaded_files: [null, "notes.txt", 3] },
  });
  const out = await agent.invoke(
    {
      messages: [
        odd,
        new HumanMessage({
          id: "odd-1",
          content: "look",
          additional_kwargs: { files: [null, "x", { filename: "notes.txt" }] },
        }),
      ],
    },
    config,
  );
  assert.deepEqual(
    out.uploaded_files?.map((f) => f.filename),
    ["notes.txt"],
  );
  assert.match(String(model.calls[0]!.messages.at(-1)!.content), /- notes\.txt \(10 B\)/);
});
