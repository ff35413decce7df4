import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createTempHome, tempHome, withTempHome } from "./temp-home.js";

test("createTempHome makes an empty directory with the given files and cleanup removes it", () => {
  const home = createTempHome({ files: { "config.yaml": "models: []\n", "skills/public/demo/SKILL.md": "# Demo" } });
  assert.ok(path.isAbsolute(home.path));
  assert.deepEqual(fs.readdirSync(home.path).sort(), ["config.yaml", "skills"]);
  assert.equal(fs.readFileSync(path.join(home.path, "skills/public/demo/SKILL.md"), "utf8"), "# Demo");
  home.cleanup();
  assert.equal(fs.existsSync(home.path), false);
  home.cleanup();
});

test("two homes never share a directory", () => {
  const [a, b] = [createTempHome(), createTempHome()];
  try {
    assert.notEqual(a.path, b.path);
  } finally {
    a.cleanup();
    b.cleanup();
  }
});

test("files may not escape the home directory", () => {
  assert.throws(() => createTempHome({ files: { "../escape.txt": "x" } }), /must be relative and stay inside/);
  assert.throws(() => createTempHome({ files: { "/etc/x": "x" } }), /must be relative and stay inside/);
});

test("withTempHome removes the directory even when the body throws", async () => {
  let seen = "";
  await assert.rejects(
    withTempHome((home) => {
      seen = home;
      fs.mkdirSync(path.join(home, "threads/t1"), { recursive: true });
      throw new Error("boom");
    }),
    /boom/,
  );
  assert.ok(seen);
  assert.equal(fs.existsSync(seen), false);
  assert.equal(await withTempHome((home) => fs.existsSync(home)), true);
});

test("tempHome removes the directory when the test ends", async (t) => {
  let seen = "";
  await t.test("inner", (inner) => {
    seen = tempHome(inner, { prefix: "deerflow-scratch-", files: { "a.txt": "a" } });
    assert.equal(path.basename(seen).startsWith("deerflow-scratch-"), true);
    assert.equal(fs.readFileSync(path.join(seen, "a.txt"), "utf8"), "a");
  });
  assert.ok(seen);
  assert.equal(fs.existsSync(seen), false);
});
