/**
 * The CLI where a user's setup is unusual: tasks from stdin or a file, --json failures, thread
 * deletion and limits, a corrupt, read-only or full thread database, a sandbox that cannot start.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, openSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { CLI, cliEnv, deerflow } from "./run-cli.js";
import { createTempHome, type TempHome } from "@deerflow/harness/testing";

const dirs: TempHome[] = [];
after(() => dirs.forEach((dir) => dir.cleanup()));
function tempDir(): string {
  const dir = createTempHome({ prefix: "df-edge-" });
  dirs.push(dir);
  writeFileSync(path.join(dir.path, "config.yaml"), "sandbox: {use: local}\nmemory: {enabled: false}\n");
  return dir.path;
}
const threadOf = (stderr: string) => /thread: ([\w-]+)/.exec(stderr)![1]!;

test("a task can come from stdin (-) or from a file (--file)", async () => {
  const cwd = tempDir();
  const piped = await deerflow(cwd, ["run", "--json", "-"], { input: "Say hello from stdin\n" });
  assert.equal(piped.code, 0, piped.stderr);
  const history = await deerflow(cwd, ["history", "--thread", JSON.parse(piped.stdout).thread_id]);
  assert.match(history.stdout, /Say hello from stdin/);

  writeFileSync(path.join(cwd, "task.md"), 'Say hello\nfrom a file with "quotes" and $HOME\n');
  const fromFile = await deerflow(cwd, ["run", "--json", "--file", "task.md"]);
  assert.equal(fromFile.code, 0, fromFile.stderr);
  const fileHistory = await deerflow(cwd, ["history", "--thread", JSON.parse(fromFile.stdout).thread_id]);
  assert.match(fileHistory.stdout, /from a file with "quotes" and \$HOME/);

  const missing = await deerflow(cwd, ["run", "--file", "nope.md"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Cannot read the task file nope\.md \(ENOENT\)/);
  const empty = await deerflow(cwd, ["run", "-"], { input: "" });
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /stdin gave no task/);
});

test("run --json prints a JSON error object on failure", async () => {
  const cwd = tempDir();
  const unknown = await deerflow(cwd, ["run", "--json", "--model", "gpt-9", "x"]);
  assert.equal(unknown.code, 2);
  const output = JSON.parse(unknown.stdout) as {
    thread_id: null;
    error: { code: string; message: string; exit_code: number };
  };
  assert.equal(output.thread_id, null);
  assert.equal(output.error.code, "model_unknown");
  assert.equal(output.error.exit_code, 2);
  assert.match(output.error.message, /gpt-9/);
  const usage = await deerflow(cwd, ["run", "--json"]);
  assert.equal(JSON.parse(usage.stdout).error.code, "usage");
});

test("threads --limit N shows the newest N; threads delete removes a thread and its files", async () => {
  const cwd = tempDir();
  const ids: string[] = [];
  for (const task of ["first", "second", "third"])
    ids.push(threadOf((await deerflow(cwd, ["run", `Say ${task}`])).stderr));
  const limited = await deerflow(cwd, ["threads", "--limit", "2"]);
  assert.equal(limited.code, 0, limited.stderr);
  assert.deepEqual(
    limited.stdout
      .trim()
      .split("\n")
      .map((line) => line.split(" ")[0]),
    [ids[2], ids[1]],
  );
  assert.equal((await deerflow(cwd, ["threads", "--limit", "0"])).code, 2);

  assert.ok(existsSync(path.join(cwd, ".deer-flow", "threads", ids[0]!)));
  const deleted = await deerflow(cwd, ["threads", "delete", ids[0]!]);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(deleted.stderr, new RegExp(`Deleted thread ${ids[0]}`));
  assert.ok(!existsSync(path.join(cwd, ".deer-flow", "threads", ids[0]!)));
  const rest = await deerflow(cwd, ["threads"]);
  assert.doesNotMatch(rest.stdout, new RegExp(ids[0]!));
  assert.match(rest.stdout, new RegExp(ids[1]!));
  const again = await deerflow(cwd, ["threads", "delete", ids[0]!]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /No thread/);
});

test("a corrupt checkpoints.sqlite gets a message naming the file and what to do", async () => {
  const cwd = tempDir();
  const file = path.join(cwd, ".deer-flow", "checkpoints.sqlite");
  spawnSync("mkdir", ["-p", path.dirname(file)]);
  writeFileSync(file, "this is not a database ".repeat(200));
  for (const args of [["run", "hello"], ["threads"]]) {
    const result = await deerflow(cwd, args);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`${file.replace(/[.]/g, "\\.")} is not a usable thread database .*mv `));
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  }
});

const bwrapWorks = spawnSync("bwrap", ["--dev-bind", "/", "/", "true"]).status === 0;

test("on a read-only home, threads and history work and run says what to do", {
  skip: !bwrapWorks && "bubblewrap is not usable here",
}, async () => {
  const cwd = tempDir();
  const first = await deerflow(cwd, ["run", "Say hello"]);
  assert.equal(first.code, 0, first.stderr);
  const thread = threadOf(first.stderr);
  // A read-only bind mount (permissions alone do not stop root, which the tests may run as).
  const readOnly = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        "bwrap",
        ["--dev-bind", "/", "/", "--ro-bind", cwd, cwd, "--chdir", cwd, process.execPath, CLI, ...args],
        { env: cliEnv(cwd) },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => (stdout += chunk));
      child.stderr.on("data", (chunk) => (stderr += chunk));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  const threads = await readOnly(["threads"]);
  assert.equal(threads.code, 0, threads.stderr);
  assert.match(threads.stdout, new RegExp(`${thread} .* messages  Say hello`));
  const history = await readOnly(["history", "--thread", thread]);
  assert.equal(history.code, 0, history.stderr);
  assert.match(history.stdout, /Say hello/);
  const run = await readOnly(["run", "--thread", thread, "again"]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /Cannot open .*checkpoints\.sqlite for writing .*read-only.*DEER_FLOW_HOME/);
});

test("a full disk behind stdout says so instead of crashing", async () => {
  if (!existsSync("/dev/full")) return;
  const cwd = tempDir();
  const code = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, "run", "Say hello"], {
      cwd,
      env: cliEnv(cwd),
      stdio: ["ignore", openSync("/dev/full", "w"), "pipe"],
    });
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.on("close", (exit) => resolve({ code: exit, stderr }));
  });
  assert.equal(code.code, 1, code.stderr);
  assert.match(code.stderr, /The disk is full: the output could not be written \(ENOSPC\)/);
  assert.doesNotMatch(code.stderr, /\n\s+at /);
});

test("a sandbox that cannot start is a setup error (exit 2)", async () => {
  const cwd = tempDir();
  writeFileSync(path.join(cwd, "config.yaml"), "sandbox: {use: bwrap}\n");
  mkdirSync(path.join(cwd, "bin"));
  symlinkSync(process.execPath, path.join(cwd, "bin", "node"));
  const result = await deerflow(cwd, ["run", "hello"], { env: { PATH: path.join(cwd, "bin") } });
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /sandbox\.use is bwrap but bwrap was not found/);
});
