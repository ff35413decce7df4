import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createTestSandbox } from "../testing/sandbox.js";
import { compileSearch, type LineMatcher } from "./grep.js";
import type { ToolFailure } from "./sandbox-tool.js";

test("compileSearch: literal escaping, case, invalid patterns", () => {
  assert.ok((compileSearch("a.b", true, true) as LineMatcher).test("a.b"));
  assert.ok(!(compileSearch("a.b", true, true) as LineMatcher).test("axb"));
  assert.ok((compileSearch("HELLO", false, false) as LineMatcher).test("hello"));
  assert.match((compileSearch("(", false, false) as ToolFailure).error, /^Invalid regex pattern: /);
});

test("grep searches a tree with a glob filter, skips binaries, and caps matches", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const ws = kit.sandbox.paths.workspace_path;
  fs.mkdirSync(path.join(ws, "src"));
  fs.writeFileSync(path.join(ws, "src/a.py"), "import os\nTODO: fix\n");
  fs.writeFileSync(path.join(ws, "src/b.md"), "todo later\n");
  fs.writeFileSync(path.join(ws, "blob.bin"), Buffer.from([0, 1, 2, 0x54, 0x4f, 0x44, 0x4f]));
  const grep = (args: Record<string, unknown>) =>
    kit.text("grep", { description: "g", path: "/mnt/user-data/workspace", ...args });
  assert.equal(
    await grep({ pattern: "todo" }),
    "/mnt/user-data/workspace/src/a.py:2: TODO: fix\n/mnt/user-data/workspace/src/b.md:1: todo later",
  );
  assert.equal(
    await grep({ pattern: "todo", case_sensitive: true }),
    "/mnt/user-data/workspace/src/b.md:1: todo later",
  );
  assert.equal(await grep({ pattern: "TODO", glob: "*.py" }), "/mnt/user-data/workspace/src/a.py:2: TODO: fix");
  assert.equal(await grep({ pattern: "o", max_results: 1 }).then((text) => text.split("\n").length), 2);
  assert.equal(
    await grep({ pattern: "[", literal: true }),
    "No matches found for pattern '[' in /mnt/user-data/workspace",
  );
  assert.match(await grep({ pattern: "[" }), /^Error: Invalid regex pattern/);
  assert.equal(
    await kit.text("grep", { description: "g", path: "/mnt/user-data/workspace/src/a.py", pattern: "import" }),
    "/mnt/user-data/workspace/src/a.py:1: import os",
  );
});
