/**
 * Keys of config.yaml that are accepted are honoured or warned about, never silently ignored:
 * `log_level` controls the harness's own log, `database` where threads are kept.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { deerflow } from "./run-cli.js";
import { createTempHome, type TempHome } from "@deerflow/harness/testing";

const dirs: TempHome[] = [];
after(() => dirs.forEach((dir) => dir.cleanup()));
function withConfig(yaml: string): string {
  const dir = createTempHome({ prefix: "df-config-" });
  dirs.push(dir);
  writeFileSync(path.join(dir.path, "config.yaml"), yaml);
  return dir.path;
}

test("log_level: debug shows the harness's key actions; the default does not", async () => {
  const debug = await deerflow(withConfig("log_level: debug\nsandbox: {use: local}\n"), ["run", "Say hello"]);
  assert.equal(debug.code, 0, debug.stderr);
  assert.match(debug.stderr, /\[deerflow\] debug title: set "Say hello" \(from the user's message\)/);
  // Middlewares log their key actions too (the demo model writes a file, which acquires the sandbox).
  assert.match(debug.stderr, /\[deerflow\] debug sandbox: acquired sandbox \S+/);
  const quiet = await deerflow(withConfig("sandbox: {use: local}\n"), ["run", "Say hello"]);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.doesNotMatch(quiet.stderr, /\[deerflow\] debug/);
});

test("database.sqlite_path moves the thread store; an unreachable postgres backend is exit 2 naming the URL", async () => {
  const cwd = withConfig("database: {sqlite_path: data/threads.sqlite}\nsandbox: {use: local}\n");
  const run = await deerflow(cwd, ["run", "Say hello"]);
  assert.equal(run.code, 0, run.stderr);
  assert.ok(existsSync(path.join(cwd, ".deer-flow", "data", "threads.sqlite")));
  assert.ok(!existsSync(path.join(cwd, ".deer-flow", "checkpoints.sqlite")));
  const threads = await deerflow(cwd, ["threads"]);
  assert.match(threads.stdout, /\d+ messages  Say hello/);

  const postgres = await deerflow(
    withConfig("database: {backend: postgres, postgres_url: 'postgres://x@127.0.0.1:1/db'}\nsandbox: {use: local}\n"),
    ["run", "Say hello"],
  );
  assert.equal(postgres.code, 2, postgres.stderr);
  assert.match(postgres.stderr, /Cannot reach Postgres at postgres:\/\/x@127\.0\.0\.1:1\/db/);
  const malformed = await deerflow(
    withConfig("database: {backend: postgres, url: 'localhost:5432'}\nsandbox: {use: local}\n"),
    ["run", "Say hello"],
  );
  assert.equal(malformed.code, 2, malformed.stderr);
  assert.match(malformed.stderr, /database\.url must start with postgres:\/\//);
});
