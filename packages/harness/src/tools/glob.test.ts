import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createTestSandbox } from "../testing/sandbox.js";
import { clampResults, relativePattern } from "./glob.js";

test("clampResults and relativePattern", () => {
  assert.equal(clampResults(undefined, 200, 1000), 200);
  assert.equal(clampResults(5000, 200, 1000), 1000);
  assert.equal(clampResults(0, 200, 1000), 1);
  assert.equal(relativePattern("/mnt/user-data/workspace/src/**/*.ts", "/mnt/user-data/workspace"), "src/**/*.ts");
  assert.equal(relativePattern("/etc/*", "/mnt/user-data/workspace"), null);
});

test("glob finds files by pattern, optionally directories, and caps results", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const ws = kit.sandbox.paths.workspace_path;
  fs.mkdirSync(path.join(ws, "src/lib"), { recursive: true });
  for (const file of ["src/a.ts", "src/lib/b.ts", "src/lib/c.md", ".hidden.ts"])
    fs.writeFileSync(path.join(ws, file), "");
  const glob = (args: Record<string, unknown>) =>
    kit.text("glob", { description: "g", path: "/mnt/user-data/workspace", ...args });
  assert.equal(
    await glob({ pattern: "**/*.ts" }),
    [
      "/mnt/user-data/workspace/.hidden.ts",
      "/mnt/user-data/workspace/src/a.ts",
      "/mnt/user-data/workspace/src/lib/b.ts",
    ].join("\n"),
  );
  assert.equal(
    await glob({ pattern: "src/*", include_dirs: true }),
    ["/mnt/user-data/workspace/src/a.ts", "/mnt/user-data/workspace/src/lib/"].join("\n"),
  );
  assert.match(
    await glob({ pattern: "**/*", max_results: 2 }),
    /\n\.\.\. \(showing the first 2 matches; narrow the pattern or path/,
  );
  assert.equal(await glob({ pattern: "**/*.rs" }), "No files matched pattern '**/*.rs' under /mnt/user-data/workspace");
});

test("glob with include_dirs leaves out dependency and VCS folders unless the pattern names them", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const ws = kit.sandbox.paths.workspace_path;
  fs.mkdirSync(path.join(ws, "src"), { recursive: true });
  fs.mkdirSync(path.join(ws, "node_modules/lib"), { recursive: true });
  fs.mkdirSync(path.join(ws, "pkg/.git"), { recursive: true });
  fs.writeFileSync(path.join(ws, "src/main.py"), "x\n");
  const glob = (args: Record<string, unknown>) =>
    kit.text("glob", { description: "g", path: "/mnt/user-data/workspace", include_dirs: true, ...args });
  assert.equal(
    await glob({ pattern: "**" }),
    ["/mnt/user-data/workspace/pkg/", "/mnt/user-data/workspace/src/", "/mnt/user-data/workspace/src/main.py"].join(
      "\n",
    ),
  );
  assert.equal(
    await glob({ pattern: "node_modules/**" }),
    ["/mnt/user-data/workspace/node_modules/", "/mnt/user-data/workspace/node_modules/lib/"].join("\n"),
  );
});
