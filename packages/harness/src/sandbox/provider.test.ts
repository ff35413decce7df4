import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { HarnessError } from "../errors.js";
import { createSandboxProvider, sandboxIdFor, threadIdOfSandbox } from "./provider.js";
import { bwrapUnavailableReason, createTestSandbox } from "../testing/sandbox.js";
import { tempHome } from "../testing/temp-home.js";

const BWRAP_SKIP = bwrapUnavailableReason();
if (BWRAP_SKIP) console.log(`bwrap tests skipped: ${BWRAP_SKIP}`);

/** True while `pid` is a live (not zombie) process. */
function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

const base = { allowHostBash: false, bashTimeoutSeconds: 5, bashOutputMaxChars: 1000 };

test("a thread keeps one sandbox (same id, same object) until release; shutdown releases all", async (t) => {
  const home = tempHome(t);
  const provider = createSandboxProvider({ ...base, use: "local", home });
  const id = provider.acquire("t1");
  assert.equal(id, sandboxIdFor("t1"));
  assert.equal(threadIdOfSandbox(id), "t1");
  const sandbox = provider.get(id)!;
  assert.equal(provider.acquire("t1"), id);
  assert.equal(provider.get(id), sandbox);
  for (const dir of ["workspace", "uploads", "outputs"])
    assert.ok(fs.statSync(path.join(home, "threads/t1/user-data", dir)).isDirectory());
  provider.release(id);
  assert.equal(provider.get(id), undefined);
  provider.acquire("t2");
  await provider.shutdown();
  assert.equal(provider.get(sandboxIdFor("t2")), undefined);
  assert.throws(
    () => provider.acquire("../x"),
    (error: unknown) => error instanceof HarnessError && error.code === "thread_invalid",
  );
});

test("local bash is offered only with allowHostBash (DeerFlow's default is off)", (t) => {
  const home = tempHome(t);
  assert.equal(createSandboxProvider({ ...base, use: "local", home }).bashAvailable, false);
  assert.equal(createSandboxProvider({ ...base, use: "local", home, allowHostBash: true }).bashAvailable, true);
});

test("auto falls back to local and says why when bwrap is missing; use: bwrap then fails at construction", (t) => {
  const home = tempHome(t);
  const provider = createSandboxProvider({ ...base, use: "auto", home, hostEnv: { PATH: "/nonexistent" } });
  assert.equal(provider.kind, "local");
  assert.match(provider.reason, /bwrap was not found on PATH/);
  assert.throws(
    () => createSandboxProvider({ ...base, use: "bwrap", home, hostEnv: { PATH: "/nonexistent" } }),
    (error: unknown) =>
      error instanceof HarnessError &&
      error.code === "sandbox_failed" &&
      /apt-get install bubblewrap/.test(error.message),
  );
});

for (const use of ["local", "bwrap"] as const) {
  const skip = use === "bwrap" ? (BWRAP_SKIP ?? false) : false;

  test(`${use}: a command that runs forever is killed at its timeout, with its whole process group`, {
    skip,
  }, async (t) => {
    const kit = createTestSandbox({ use, bashTimeoutSeconds: 1 });
    t.after(() => kit.cleanup());
    const text = await kit.text("bash", {
      description: "hang",
      command: "sleep 300 & echo $! > /mnt/user-data/workspace/bg.pid; sleep 300",
    });
    assert.match(
      text,
      /^Error: Command timed out after 1 seconds and was stopped \(its whole process group was killed\)/,
    );
    if (use === "local") {
      const pid = Number(fs.readFileSync(path.join(kit.sandbox.paths.workspace_path, "bg.pid"), "utf8"));
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(isRunning(pid), false, "the background sleep was killed too");
    }
  });

  test(`${use}: 50 MB of output comes back middle-truncated with a marker, the event loop keeps running`, {
    skip,
  }, async (t) => {
    const kit = createTestSandbox({ use, limits: { bashOutputMaxChars: 2000 } });
    t.after(() => kit.cleanup());
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 1);
    const text = await kit.text("bash", {
      description: "flood",
      command: "head -c 52428800 /dev/zero | tr '\\0' a; echo; echo END",
    });
    clearInterval(timer);
    assert.match(text, /\n\.\.\. \[middle truncated: \d+ chars skipped\] \.\.\.\n/);
    assert.ok(text.startsWith("a".repeat(1000)));
    assert.ok(text.endsWith("END\n"));
    assert.ok(text.length < 2100, `kept ${text.length} chars`);
    assert.ok(ticks > 0, "timers fired while the command streamed");
  });

  test(`${use}: secrets in the harness environment never reach the command`, { skip }, async (t) => {
    const kit = createTestSandbox({ use, hostEnv: { ...process.env, MY_SERVICE_API_KEY: "canary-env-1234" } });
    t.after(() => kit.cleanup());
    const text = await kit.text("bash", { description: "env", command: "env" });
    assert.ok(!text.includes("canary-env-1234"));
    assert.match(text, /HOME=/);
  });

  test(`${use}: host paths in command output are shown as virtual paths`, { skip }, async (t) => {
    const kit = createTestSandbox({ use });
    t.after(() => kit.cleanup());
    const text = await kit.text("bash", { description: "where", command: "pwd; ls /mnt/user-data/outputs/missing" });
    assert.match(text, /^\/mnt\/user-data\/workspace\n/);
    assert.ok(!text.includes(kit.home), text);
    assert.match(text, /\[exit code: 2\]$/);
  });
}

test("bwrap: the host /etc, the repository and the network are out of reach", {
  skip: BWRAP_SKIP ?? false,
}, async (t) => {
  const kit = createTestSandbox({ use: "bwrap", skills: { "public/demo/SKILL.md": "---\nname: demo\n---\n" } });
  t.after(() => kit.cleanup());
  assert.equal(kit.provider.kind, "bwrap");
  // Raw execute: bypasses the command path check, so only the namespace stands in the way.
  const run = async (command: string) => (await kit.sandbox.execute(command)).output;
  const hostPasswd = fs.readFileSync("/etc/passwd", "utf8");
  const inside = await run("cat /etc/passwd");
  assert.notEqual(inside, hostPasswd);
  assert.ok(!inside.includes(hostPasswd.split("\n")[0]!), "not even the host's root line");
  assert.match(await run(`ls ${process.cwd()} 2>&1; echo rc=$?`), /No such file or directory\nrc=2/);
  assert.match(await run(`cat ${kit.home}/threads 2>&1; echo rc=$?`), /rc=1/);
  assert.equal((await run("id -u")).trim(), "1000");
  assert.equal((await run("grep CapEff /proc/self/status")).trim(), "CapEff:\t0000000000000000");
  const interfaces = await run("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
  assert.equal(interfaces.trim(), "lo", "only a loopback interface");
  assert.match(await run("(echo > /dev/tcp/1.1.1.1/53) 2>&1 && echo open || echo closed"), /closed/);
  assert.match(await run("getent hosts example.com || echo unresolved"), /unresolved/);
  // Decoy names: if isolation ever regressed, these would be new junk files, not damaged system files.
  const decoy = `deerflow-decoy-${process.pid}`;
  t.after(() => {
    for (const file of [`/usr/${decoy}`, `/${decoy}`]) fs.rmSync(file, { force: true });
  });
  assert.match(
    await run(`touch /mnt/skills/${decoy} 2>&1; touch /usr/${decoy} 2>&1; touch /${decoy} 2>&1`),
    /Read-only file system[\s\S]*Read-only file system[\s\S]*Read-only file system/,
  );
  assert.ok(!fs.existsSync(`/usr/${decoy}`) && !fs.existsSync(`/${decoy}`));
  await run("echo private > /tmp/mine");
  assert.match(await run("cat /tmp/mine 2>&1"), /No such file/, "/tmp is private to each command");
  await run("echo kept > /mnt/user-data/outputs/kept.txt");
  assert.equal(fs.readFileSync(path.join(kit.sandbox.paths.outputs_path, "kept.txt"), "utf8"), "kept\n");
});

test("auto proves bubblewrap when the kind is first needed, once, not at construction", (t) => {
  const home = tempHome(t);
  const log = path.join(home, "probes.log");
  // A stand-in bwrap that records each run and fails, so the provider falls back to local.
  const fake = path.join(home, "bwrap");
  fs.writeFileSync(fake, `#!/bin/sh\necho probe >> ${JSON.stringify(log)}\nexit 1\n`, { mode: 0o755 });
  const runs = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0);
  const provider = createSandboxProvider({ ...base, use: "auto", home, bwrapPath: fake });
  assert.equal(runs(), 0, "constructing the provider runs nothing");
  assert.equal(provider.kind, "local");
  assert.equal(runs(), 1);
  assert.equal(provider.bashAvailable, false);
  provider.acquire("t1");
  assert.equal(runs(), 1, "proved once");
  // use: bwrap is still checked at construction.
  assert.throws(() => createSandboxProvider({ ...base, use: "bwrap", home, bwrapPath: fake }));
  assert.equal(runs(), 2);
});
