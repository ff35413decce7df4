import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createTestSandbox } from "../testing/sandbox.js";

test("ls lists two levels, marks directories and symlinks, and does not follow links", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const ws = kit.sandbox.paths.workspace_path;
  fs.mkdirSync(path.join(ws, "src/deep/deeper"), { recursive: true });
  fs.writeFileSync(path.join(ws, "src/a.ts"), "");
  fs.writeFileSync(path.join(ws, "src/deep/hidden.ts"), "");
  fs.symlinkSync("/etc", path.join(ws, "etc-link"));
  assert.equal(
    await kit.text("ls", { description: "l", path: "/mnt/user-data/workspace" }),
    [
      "/mnt/user-data/workspace/etc-link@",
      "/mnt/user-data/workspace/src/",
      "/mnt/user-data/workspace/src/a.ts",
      "/mnt/user-data/workspace/src/deep/",
    ].join("\n"),
  );
  assert.equal(await kit.text("ls", { description: "l", path: "/mnt/user-data/uploads" }), "(empty)");
  assert.equal(
    await kit.text("ls", { description: "l", path: "/mnt/user-data/nothing" }),
    "Error: Access denied: /mnt/user-data/nothing is not inside /mnt/user-data/workspace, /mnt/user-data/uploads or /mnt/user-data/outputs.",
  );
  assert.equal(
    await kit.text("ls", { description: "l", path: "/mnt/user-data/workspace/none" }),
    "Error: Directory not found: /mnt/user-data/workspace/none",
  );
  assert.match(
    await kit.text("ls", { description: "l", path: "/mnt/user-data/workspace/src/a.ts" }),
    /is a file, not a directory/,
  );
});

test("ls hides upload staging files only; other dotfiles, even .upload-* ones, are listed", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const uploads = kit.sandbox.paths.uploads_path;
  for (const name of ["report.txt", ".env", ".upload-note.txt", ".upload-3f9a.part"])
    fs.writeFileSync(path.join(uploads, name), "x");
  assert.equal(
    await kit.text("ls", { description: "l", path: "/mnt/user-data/uploads" }),
    [
      "/mnt/user-data/uploads/.env",
      "/mnt/user-data/uploads/.upload-note.txt",
      "/mnt/user-data/uploads/report.txt",
    ].join("\n"),
  );
});

test("ls output past the cap keeps its head and says how to see less", async (t) => {
  const kit = createTestSandbox({ limits: { lsMaxChars: 120 } });
  t.after(() => kit.cleanup());
  for (let i = 0; i < 30; i += 1) fs.writeFileSync(path.join(kit.sandbox.paths.outputs_path, `file-${i}.txt`), "");
  const text = await kit.text("ls", { description: "l", path: "/mnt/user-data/outputs" });
  assert.match(
    text,
    /\n\.\.\. \[truncated: showing first 120 of \d+ chars\. Use a more specific path to see fewer results\] \.\.\.$/,
  );
});
