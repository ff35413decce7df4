/**
 * scripts/test-preload.mjs (loaded into every process `npm test` starts) drops node:test's `destroy`
 * tracking of asynchronous work for speed: tests declared after an await still nest under their suite
 * (the test groups rely on it), an error thrown later in a test's asynchronous work still fails that
 * test, and the runner's hook no longer watches promises for collection.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { tempHome } from "./temp-home.js";

const preload = pathToFileURL(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../scripts/test-preload.mjs"),
).href;

const FIXTURE = `
import { describe, test } from "node:test";
import asyncHooks from "node:async_hooks";
console.log("createHook is " + asyncHooks.createHook.name);
describe("outer suite", async () => {
  await new Promise((resolve) => setTimeout(resolve, 5));
  await Promise.resolve();
  test("declared after awaits", () => {});
});
test("fails later in its own async work", async () => {
  await new Promise((resolve) => {
    setTimeout(() => {
      Promise.resolve().then(() => { throw new Error("late failure"); });
      setTimeout(resolve, 20);
    }, 5);
  });
});
test("passes", () => {});
`;

function runFixture(dir: string, env: NodeJS.ProcessEnv): string {
  const result = spawnSync(process.execPath, ["--import", preload, "--test-reporter=spec", "fixture.test.mjs"], {
    cwd: dir,
    env: { ...process.env, ...env, NO_COLOR: "1", FORCE_COLOR: "0" },
    encoding: "utf8",
  });
  return result.stdout + result.stderr;
}

test("with the test preload, suites nest tests declared after awaits and late errors fail their own test", (t) => {
  const dir = tempHome(t, { files: { "fixture.test.mjs": FIXTURE } });
  const output = runFixture(dir, {});
  // Nested: the spec reporter indents a suite's tests under it.
  assert.match(output, /▶ outer suite\n\s+✔ declared after awaits/);
  assert.match(output, /✖ fails later in its own async work/);
  assert.match(output, /late failure/);
  assert.match(output, /✔ passes/);
  assert.match(output, /ℹ fail 1\n/);
  assert.match(output, /createHook is lighterForTheTestRunner/);
  // The same file with the runner's own tracking reads the same.
  const full = runFixture(dir, { DEERFLOW_TEST_ASYNC_TRACKING: "full" });
  assert.match(full, /createHook is createHook/);
  assert.match(full, /▶ outer suite\n\s+✔ declared after awaits/);
  assert.match(full, /✖ fails later in its own async work/);
});
