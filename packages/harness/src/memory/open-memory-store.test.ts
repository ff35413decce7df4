import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { parseConfigObject } from "../config/load-config.js";
import { HarnessError } from "../errors.js";
import { tempHome } from "../testing/temp-home.js";
import { memoryFileError, openMemoryStore } from "./open-memory-store.js";

const config = (memory: Record<string, unknown> = {}) => parseConfigObject({ memory }, { source: null, env: {} });

test("a memory file that is a directory is named with what to do, by every method", (t) => {
  const home = tempHome(t);
  fs.mkdirSync(path.join(home, "memory.json"));
  const store = openMemoryStore(config(), { home });
  for (const call of [
    () => store.load(),
    () => store.clear(),
    () => store.forgetFact("x"),
    () => store.update((m) => m),
  ]) {
    assert.throws(call, (error: unknown) => {
      assert.ok(error instanceof HarnessError);
      assert.equal(error.code, "storage_unusable");
      assert.match(error.message, /^Memory file .*memory\.json is a directory, not a file\. Move it aside \(mv /);
      return true;
    });
  }
});

test("with memory.storage_path set, the fix names that setting instead of DEER_FLOW_HOME", (t) => {
  const home = tempHome(t);
  fs.writeFileSync(path.join(home, "blocker"), "a file\n");
  const store = openMemoryStore(config({ storage_path: "blocker" }), { home });
  assert.throws(
    () => store.load(),
    /a part of its path is a file, not a directory\. .*memory\.storage_path in config\.yaml/,
  );
});

test("errors that are not the file system's pass through unchanged (an update callback's own error)", (t) => {
  const home = tempHome(t);
  const store = openMemoryStore(config(), { home });
  const own = new Error("409: memory is full");
  assert.throws(
    () =>
      store.update(() => {
        throw own;
      }),
    (error: unknown) => error === own,
  );
  assert.equal(
    memoryFileError("/h/memory.json", new HarnessError("memory_locked", "busy"), "DEER_FLOW_HOME"),
    undefined,
  );
});

test("a failed write names the file being replaced, not its temp file", () => {
  const error = Object.assign(new Error("EACCES: permission denied"), {
    code: "EACCES",
    syscall: "open",
    path: "/h/.memory.json.123.abcdef012345.tmp",
  });
  assert.equal(
    memoryFileError("/h/memory.json", error, "DEER_FLOW_HOME")?.message,
    "Cannot write /h/memory.json (EACCES): /h is read-only or not yours. Make /h writable by you, or set DEER_FLOW_HOME to a directory you own.",
  );
  const reading = Object.assign(new Error("EACCES"), { code: "EACCES", syscall: "open", path: "/h/memory.json" });
  assert.match(
    memoryFileError("/h/memory.json", reading, "DEER_FLOW_HOME")?.message ?? "",
    /^Cannot read the memory file \/h\/memory\.json \(EACCES\)/,
  );
});
