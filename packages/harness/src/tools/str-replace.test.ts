import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createTestSandbox } from "../testing/sandbox.js";
import { replaceExact } from "./str-replace.js";

test("replaceExact: one match, all matches, missing, ambiguous, empty", () => {
  assert.deepEqual(
    replaceExact("a b a", "b", "$&c", false, "/p"),
    { text: "a $&c a" },
    "no regex replacement patterns",
  );
  assert.deepEqual(replaceExact("a b a", "a", "x", true, "/p"), { text: "x b x" });
  assert.deepEqual(replaceExact("a b a", "z", "x", false, "/p"), { error: "String to replace not found in file: /p" });
  assert.match(
    (replaceExact("a b a", "a", "x", false, "/p") as { error: string }).error,
    /appears 2 times in \/p\. .*replace_all/,
  );
  assert.match((replaceExact("a", "", "x", false, "/p") as { error: string }).error, /old_str is empty/);
});

test("str_replace edits the file in place and reports problems as errors", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const host = path.join(kit.sandbox.paths.workspace_path, "c.py");
  fs.writeFileSync(host, "x = 1\ny = 1\n");
  const edit = (args: Record<string, unknown>) =>
    kit.text("str_replace", { description: "e", path: "/mnt/user-data/workspace/c.py", ...args });
  assert.match(await edit({ old_str: "= 1", new_str: "= 2" }), /^Error: old_str appears 2 times/);
  assert.equal(await edit({ old_str: "y = 1", new_str: "y = 2" }), "OK");
  assert.equal(fs.readFileSync(host, "utf8"), "x = 1\ny = 2\n");
  assert.equal(await edit({ old_str: "= ", new_str: "=", replace_all: true }), "OK");
  assert.equal(fs.readFileSync(host, "utf8"), "x =1\ny =2\n");
  assert.equal(
    await edit({ old_str: "missing", new_str: "" }),
    "Error: String to replace not found in file: /mnt/user-data/workspace/c.py",
  );
  assert.equal(
    await kit.text("str_replace", { description: "e", path: "nope.py", old_str: "a", new_str: "b" }),
    "Error: File not found: /mnt/user-data/workspace/nope.py",
  );
});
