/**
 * The home directory as a hostile or careless user leaves it: `DEER_FLOW_HOME` set but empty, a home
 * the user cannot write (another user's, or on read-only media), steps still in the database's `-wal`
 * file, and a memory file that is a directory or sits below a file. Each command either works or says
 * which file is wrong and what to do, with exit code 2 (a setup problem), never a bare `EISDIR`.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { createTempHome, type TempHome } from "@deerflow/harness/testing";
import { CLI, type CliResult, cliEnv, deerflow } from "./run-cli.js";

const dirs: TempHome[] = [];
after(() => dirs.forEach((dir) => dir.cleanup()));
function tempDir(): string {
  const dir = createTempHome({ prefix: "df-home-" });
  dirs.push(dir);
  // Readable by the unprivileged user the read-only tests run as.
  chmodSync(dir.path, 0o755);
  writeFileSync(path.join(dir.path, "config.yaml"), "sandbox: {use: local}\nmemory: {enabled: false}\n");
  return dir.path;
}
const threadOf = (stderr: string) => /thread: ([\w-]+)/.exec(stderr)![1]!;

/** Why the unprivileged runs cannot happen here, or null. Root ignores file modes, so they run as nobody. */
function nobodyUnavailable(): string | null {
  if (process.getuid?.() !== 0) return "the tests do not run as root, so they cannot switch to nobody";
  const probe = spawnSync(
    "setpriv",
    [
      "--reuid=65534",
      "--regid=65534",
      "--clear-groups",
      process.execPath,
      "-e",
      `require("fs").accessSync(${JSON.stringify(CLI)})`,
    ],
    { encoding: "utf8" },
  );
  if (probe.error) return `setpriv is not usable (${probe.error.message})`;
  if (probe.status !== 0) return `nobody cannot read the built CLI (${probe.stderr.trim().split("\n")[0]})`;
  return null;
}
const NOBODY_SKIP = nobodyUnavailable();
if (NOBODY_SKIP) console.log(`skipping the read-only home tests: ${NOBODY_SKIP}`);

/** Runs `deerflow ...args` in `cwd` as the user nobody, who cannot write the home (root created it). */
function asNobody(cwd: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "setpriv",
      ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, CLI, ...args],
      { cwd, env: { ...cliEnv(cwd), ...env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

test("an empty DEER_FLOW_HOME is the default home: nothing lands loose in the working directory", async () => {
  const cwd = tempDir();
  const run = await deerflow(cwd, ["run", "Say hello"], { env: { DEER_FLOW_HOME: "" } });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(readdirSync(cwd).sort(), [".deer-flow", "config.yaml"]);
  assert.ok(existsSync(path.join(cwd, ".deer-flow", "checkpoints.sqlite")));
  const listed = await deerflow(cwd, ["threads"], { env: { DEER_FLOW_HOME: " " } });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`^${threadOf(run.stderr)} .* Say hello`));
});

test("on a home the user cannot write, threads, history and memory show work; writing commands say what to do", {
  skip: NOBODY_SKIP ?? false,
}, async () => {
  const cwd = tempDir();
  const first = await deerflow(cwd, ["run", "Say hello"]);
  assert.equal(first.code, 0, first.stderr);
  const thread = threadOf(first.stderr);
  const home = path.join(cwd, ".deer-flow");

  const threads = await asNobody(cwd, ["threads"]);
  assert.equal(threads.code, 0, threads.stderr);
  assert.match(threads.stdout, new RegExp(`${thread} .* messages  Say hello`));
  const history = await asNobody(cwd, ["history", "--thread", thread]);
  assert.equal(history.code, 0, history.stderr);
  assert.match(history.stdout, /user: Say hello/);
  const memory = await asNobody(cwd, ["memory", "show"]);
  assert.equal(memory.code, 0, memory.stderr);

  for (const args of [
    ["run", "--thread", thread, "again"],
    ["threads", "delete", thread],
  ]) {
    const refused = await asNobody(cwd, args);
    assert.equal(refused.code, 2, `${args.join(" ")}: ${refused.stderr}`);
    assert.match(refused.stderr, /Cannot open .*checkpoints\.sqlite for writing .*read-only or not yours/);
    assert.match(refused.stderr, /set DEER_FLOW_HOME to a writable directory/);
  }
  const clear = await asNobody(cwd, ["memory", "clear"]);
  assert.equal(clear.code, 2, clear.stderr);
  assert.match(
    clear.stderr,
    new RegExp(`Cannot write ${home}/memory\\.json \\(EACCES\\): ${home} is read-only or not yours`),
  );
  assert.doesNotMatch(clear.stderr, /\n\s+at /);
  assert.deepEqual(
    readdirSync(home).sort(),
    ["checkpoints.sqlite", "skills-view", "threads"],
    "nothing was written into the home",
  );
});

test("on a read-only home, threads still in the database's -wal file are listed", {
  skip: NOBODY_SKIP ?? false,
}, async () => {
  const cwd = tempDir();
  const file = path.join(cwd, ".deer-flow", "checkpoints.sqlite");
  const first = await deerflow(cwd, ["run", "Say one"]);
  assert.equal(first.code, 0, first.stderr);
  // A second connection that stays open keeps the next run's steps in the -wal file, as after a crash.
  const held = new Database(file);
  held.pragma("wal_autocheckpoint = 0");
  held.prepare("SELECT count(*) FROM sqlite_master").get();
  let copyHome: string;
  try {
    const second = await deerflow(cwd, ["run", "Say two"]);
    assert.equal(second.code, 0, second.stderr);
    assert.ok(existsSync(`${file}-wal`), "the second run's steps are in the -wal file");
    // A copy of the home as a backup would hold it: the database and its -wal file, no -shm.
    copyHome = path.join(tempDir(), ".deer-flow");
    mkdirSync(copyHome);
    copyFileSync(file, path.join(copyHome, "checkpoints.sqlite"));
    copyFileSync(`${file}-wal`, path.join(copyHome, "checkpoints.sqlite-wal"));
  } finally {
    held.close();
  }
  const listed = await asNobody(path.dirname(copyHome), ["threads"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^\S+ .* Say two\n\S+ .* Say one\n$/);
});

test("memory commands name a memory file that is a directory, or below a file, and say what to do", async () => {
  const cwd = tempDir();
  const file = path.join(cwd, ".deer-flow", "memory.json");
  mkdirSync(file, { recursive: true });
  for (const args of [["memory"], ["memory", "clear"], ["memory", "forget", "fact_1"], ["memory", "export"]]) {
    const result = await deerflow(cwd, args);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.equal(
      result.stderr,
      `deerflow: Memory file ${file} is a directory, not a file. Move it aside (mv "${file}" "${file}.bak"); memory then starts empty.\n`,
    );
  }

  const blocked = tempDir();
  writeFileSync(path.join(blocked, "home-file"), "not a directory\n");
  const below = await deerflow(blocked, ["memory", "show"], {
    env: { DEER_FLOW_HOME: path.join(blocked, "home-file") },
  });
  assert.equal(below.code, 2, below.stderr);
  assert.match(
    below.stderr,
    /Cannot reach the memory file .*home-file\/memory\.json: a part of its path is a file, not a directory\. .*DEER_FLOW_HOME/,
  );

  const exported = await deerflow(blocked, ["memory", "export", blocked]);
  assert.equal(exported.code, 2, exported.stderr);
  assert.match(exported.stderr, new RegExp(`${blocked} is a directory\\. Give a file name instead`));
});
