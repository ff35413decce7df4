import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ToolMessage } from "@langchain/core/messages";
import { createTestSandbox } from "../testing/sandbox.js";
import { READ_FILE_WHOLE_MAX_BYTES } from "./limits.js";
import type { ToolFailure } from "./sandbox-tool.js";
import { selectLines } from "./text-file.js";

const read = (args: Record<string, unknown>) => ({ description: "read", ...args });

test("selectLines: 1-based inclusive ranges and DeerFlow's notes", () => {
  const text = "a\nb\nc\n";
  assert.equal(selectLines(text, 2, 3), "b\nc");
  assert.equal(selectLines(text, 2, 99), "b\nc");
  assert.equal(selectLines(text, null, 1), "a");
  assert.equal(selectLines(text, 0, 1), "(start_line must be >= 1)");
  assert.equal(selectLines(text, 3, 2), "(start_line > end_line — no lines in range)");
  assert.match(
    (selectLines(text, 4, 5) as ToolFailure).error,
    /^start_line exceeds file length: the file has 3 lines\. Use a start_line from 1 to 3\./,
  );
  assert.equal(selectLines("", 1, 2), "(empty)");
});

test("line-range errors name the bad bound: end_line below 1, start_line past the end", async (t) => {
  assert.equal(selectLines("a\nb\n", null, 0), "(end_line must be >= 1)");
  assert.equal(selectLines("a\nb\n", 1, -1), "(end_line must be >= 1)");
  assert.match((selectLines("a\nb\n", 9) as ToolFailure).error, /start_line exceeds file length/);
  assert.match((selectLines("", 3) as ToolFailure).error, /start_line exceeds file length/);
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const file = path.join(kit.sandbox.paths.workspace_path, "huge.log");
  const line = `${"y".repeat(99)}\n`;
  const count = Math.ceil((READ_FILE_WHOLE_MAX_BYTES + 1) / line.length);
  fs.writeFileSync(file, line.repeat(count));
  assert.equal(await kit.text("read_file", read({ path: "huge.log", end_line: 0 })), "(end_line must be >= 1)");
  assert.match(
    await kit.text("read_file", read({ path: "huge.log", start_line: count + 5 })),
    new RegExp(`^Error: start_line exceeds file length: /mnt/user-data/workspace/huge\\.log has ${count} lines\\.`),
  );
});

test("read_file returns text, ranges, and clear errors", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const ws = kit.sandbox.paths.workspace_path;
  fs.writeFileSync(path.join(ws, "a.txt"), "one\ntwo\nthree\n");
  fs.writeFileSync(path.join(ws, "bin.dat"), Buffer.from([0x89, 0x00, 0x01, 0x02]));
  assert.equal(await kit.text("read_file", read({ path: "/mnt/user-data/workspace/a.txt" })), "one\ntwo\nthree\n");
  assert.equal(await kit.text("read_file", read({ path: "a.txt", start_line: 2, end_line: 2 })), "two");
  assert.equal(
    await kit.text("read_file", read({ path: "/mnt/user-data/workspace/nope.txt" })),
    "Error: File not found: /mnt/user-data/workspace/nope.txt",
  );
  assert.match(await kit.text("read_file", read({ path: "/mnt/user-data/workspace" })), /is a directory\. Use ls/);
  assert.match(
    await kit.text("read_file", read({ path: "/mnt/user-data/workspace/bin.dat" })),
    /^Error: cannot read '\/mnt\/user-data\/workspace\/bin\.dat' as text: it appears to be a binary file/,
  );
});

test("read_file caps long output with advice to use a range", async (t) => {
  const kit = createTestSandbox({ limits: { readFileMaxChars: 100 } });
  t.after(() => kit.cleanup());
  fs.writeFileSync(path.join(kit.sandbox.paths.workspace_path, "long.txt"), "x".repeat(1000));
  const text = await kit.text("read_file", read({ path: "long.txt" }));
  assert.equal(
    text,
    `${"x".repeat(100)}\n... [truncated: showing first 100 of 1000 chars. Use start_line/end_line to read a specific range] ...`,
  );
});

test("read_file of a file too big to load needs a range, then streams it", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const file = path.join(kit.sandbox.paths.workspace_path, "huge.log");
  const line = `${"y".repeat(99)}\n`;
  fs.writeFileSync(file, line.repeat(Math.ceil((READ_FILE_WHOLE_MAX_BYTES + 1) / line.length)));
  assert.match(
    await kit.text("read_file", read({ path: "huge.log" })),
    /too large to read whole\. Read it in parts with start_line and end_line/,
  );
  assert.equal(
    await kit.text("read_file", read({ path: "huge.log", start_line: 3, end_line: 4 })),
    `${"y".repeat(99)}\n${"y".repeat(99)}`,
  );
});

test("reading a skill's SKILL.md stamps skill_context_entry with the frontmatter description", async (t) => {
  const description = `Turns   notes\n  into ${"z".repeat(600)}`;
  const kit = createTestSandbox({
    skills: {
      "public/notes/SKILL.md": `---\nname: notes\ndescription: ${JSON.stringify(description)}\n---\n# Body text\n`,
      "public/notes/reference.md": "not a skill file\n",
    },
  });
  t.after(() => kit.cleanup());
  const result = await kit.call(
    "read_file",
    read({ path: "/mnt/skills/public/notes/SKILL.md", start_line: 5, end_line: 5 }),
  );
  assert.ok(ToolMessage.isInstance(result));
  assert.equal(result.content, "# Body text");
  const entry = result.additional_kwargs.skill_context_entry as { path: string; description: string };
  assert.equal(entry.path, "/mnt/skills/public/notes/SKILL.md");
  assert.equal(entry.description, `Turns notes into ${"z".repeat(600)}`.slice(0, 500));
  const other = await kit.call("read_file", read({ path: "/mnt/skills/public/notes/reference.md" }));
  assert.equal((other as ToolMessage).additional_kwargs.skill_context_entry, undefined);
  const missing = await kit.call("read_file", read({ path: "/mnt/skills/public/gone/SKILL.md" }));
  assert.equal(
    (missing as ToolMessage).additional_kwargs.skill_context_entry,
    undefined,
    "failed reads carry no entry",
  );
});
