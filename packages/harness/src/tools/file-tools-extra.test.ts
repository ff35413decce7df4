/**
 * Issue 10 findings on the file tools: a catastrophic regex cannot freeze grep, dependency folders stay
 * out of glob and grep, upload staging files stay out of ls, read_file says when start_line is past
 * the end, and a command over the OS argument limit is explained.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createTestSandbox } from "../testing/sandbox.js";

test("grep runs a catastrophic pattern in linear time", { timeout: 60_000 }, async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  fs.writeFileSync(
    path.join(kit.sandbox.paths.workspace_path, "a.txt"),
    `${"a".repeat(5000)}!\n${"a".repeat(40)}!\nok aaa\n`,
  );
  const text = await kit.text("grep", { description: "g", pattern: "^(a+)+$", path: "/mnt/user-data/workspace" });
  assert.equal(text, "No matches found for pattern '^(a+)+$' in /mnt/user-data/workspace");
  assert.equal(
    await kit.text("grep", { description: "g", pattern: "^ok (a|aa)+$", path: "/mnt/user-data/workspace" }),
    "/mnt/user-data/workspace/a.txt:3: ok aaa",
  );
  assert.match(
    await kit.text("grep", { description: "g", pattern: "(a)\\1", path: "/mnt/user-data/workspace" }),
    /^Error: Invalid regex pattern: .*RE2/,
  );
});

test("glob and grep skip node_modules, .git and similar unless the pattern names them", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const ws = kit.sandbox.paths.workspace_path;
  for (const file of [
    "src/a.js",
    "node_modules/lib/index.js",
    ".git/hooks/x.js",
    ".venv/lib/y.js",
    "__pycache__/z.js",
  ]) {
    fs.mkdirSync(path.dirname(path.join(ws, file)), { recursive: true });
    fs.writeFileSync(path.join(ws, file), "needle\n");
  }
  assert.equal(
    await kit.text("glob", { description: "g", pattern: "**/*.js", path: "/mnt/user-data/workspace" }),
    "/mnt/user-data/workspace/src/a.js",
  );
  assert.equal(
    await kit.text("grep", { description: "g", pattern: "needle", path: "/mnt/user-data/workspace" }),
    "/mnt/user-data/workspace/src/a.js:1: needle",
  );
  assert.equal(
    await kit.text("glob", { description: "g", pattern: "node_modules/**/*.js", path: "/mnt/user-data/workspace" }),
    "/mnt/user-data/workspace/node_modules/lib/index.js",
  );
});

test("ls hides upload staging files", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  fs.writeFileSync(path.join(kit.sandbox.paths.uploads_path, "report.pdf"), "x");
  fs.writeFileSync(path.join(kit.sandbox.paths.uploads_path, ".upload-1234.part"), "x");
  assert.equal(
    await kit.text("ls", { description: "l", path: "/mnt/user-data/uploads" }),
    "/mnt/user-data/uploads/report.pdf",
  );
  assert.equal(
    await kit.text("glob", { description: "g", pattern: "*", path: "/mnt/user-data/uploads" }),
    "/mnt/user-data/uploads/report.pdf",
  );
});

test("read_file says clearly when start_line is past the end", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  fs.writeFileSync(path.join(kit.sandbox.paths.workspace_path, "three.txt"), "1\n2\n3\n");
  assert.equal(
    await kit.text("read_file", {
      description: "r",
      path: "/mnt/user-data/workspace/three.txt",
      start_line: 10,
      end_line: 20,
    }),
    "Error: start_line exceeds file length: /mnt/user-data/workspace/three.txt has 3 lines. Use a start_line from 1 to 3.",
  );
});

test("a bash command over the OS argument limit gets a message that says so", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const text = await kit.text("bash", { description: "b", command: `echo ${"x".repeat(200_000)} > /dev/null` });
  assert.match(
    text,
    /^Error: the command is 200\d+ bytes, over the operating system's limit of 131072 bytes for one argument\. .*write_file/,
  );
});
