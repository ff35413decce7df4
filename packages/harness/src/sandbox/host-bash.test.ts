/**
 * Host bash (local provider, `allow_host_bash: true`) against what a user's machine really has: a home
 * path with spaces, quotes and `$`, secrets in the harness's environment, background processes, and
 * `file:` URLs. Every write target is inside temp directories; decoys are checked, never system files.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createSandboxProvider } from "./provider.js";
import { rewriteVirtualPaths } from "./command-paths.js";
import { PathPolicy } from "./path-policy.js";
import { createTestSandbox } from "../testing/sandbox.js";
import { createTempHome, tempHome } from "../testing/temp-home.js";

const HOSTILE_HOMES = ["home with space", 'it\'s "quoted"', "cost $HOME and $(id) `x`", "tab\there & ; |"];

for (const name of HOSTILE_HOMES) {
  test(`virtual paths in commands stay inside when the home is ${JSON.stringify(name)}`, async (t) => {
    const parent = tempHome(t);
    const home = path.join(parent, name);
    const provider = createSandboxProvider({
      use: "local",
      home,
      skillsPath: null,
      allowHostBash: true,
      bashTimeoutSeconds: 20,
      bashOutputMaxChars: 20_000,
    });
    t.after(() => provider.shutdown());
    const sandbox = provider.get(provider.acquire("t1"))!;
    const run = async (command: string) => {
      const prepared = sandbox.prepareCommand(command);
      assert.ok(prepared.ok, `refused: ${command}: ${prepared.ok ? "" : prepared.error}`);
      return (await sandbox.execute(prepared.command)).output;
    };
    await run("echo hi > /mnt/user-data/workspace/a.txt");
    await run(`echo dq > "/mnt/user-data/workspace/b.txt"; echo sq > '/mnt/user-data/workspace/c.txt'`);
    await run(`cat /mnt/user-data/workspace/a.txt "/mnt/user-data/workspace/b.txt" > /mnt/user-data/outputs/ab.txt`);
    assert.equal(await run(`echo "$(cat "/mnt/user-data/workspace/a.txt")"`), "hi\n");
    assert.equal(await run(`ls /mnt/user-data/workspace/*.txt | wc -l`), "3\n");
    assert.equal(
      await run(`cat <<EOF\npath=/mnt/user-data/workspace/a.txt\nEOF`),
      "path=/mnt/user-data/workspace/a.txt\n".replace("/mnt/user-data", sandbox.policy.userDataDir),
    );
    assert.equal(
      await run(`echo 'it''s' /mnt/user-data/workspace/a.txt # don't worry\ncat /mnt/user-data/workspace/c.txt`).then(
        (o) => o.split("\n").at(-2),
      ),
      "sq",
    );
    const workspace = sandbox.paths.workspace_path;
    assert.equal(fs.readFileSync(path.join(workspace, "a.txt"), "utf8"), "hi\n");
    assert.equal(fs.readFileSync(path.join(workspace, "b.txt"), "utf8"), "dq\n");
    assert.equal(fs.readFileSync(path.join(workspace, "c.txt"), "utf8"), "sq\n");
    assert.equal(fs.readFileSync(path.join(sandbox.paths.outputs_path, "ab.txt"), "utf8"), "hi\ndq\n");
    assert.deepEqual(fs.readdirSync(parent), [name], "nothing was created next to the home");
  });
}

test("rewriteVirtualPaths quotes the host path for the context it appears in", () => {
  const policy = new PathPolicy({ userDataDir: "/h o'me/t/user-data", skillsDir: null });
  assert.equal(
    rewriteVirtualPaths("cat /mnt/user-data/workspace/a", policy),
    `cat '/h o'\\''me/t/user-data'/workspace/a`,
  );
  assert.equal(
    rewriteVirtualPaths(`cat "/mnt/user-data/workspace/a"`, policy),
    `cat "/h o'me/t/user-data/workspace/a"`,
  );
  assert.equal(rewriteVirtualPaths("cat /mnt/user-data-x/a", policy), "cat /mnt/user-data-x/a");
  assert.equal(
    rewriteVirtualPaths("echo $((1<<2))\nls /mnt/user-data/workspace", policy),
    `echo $((1<<2))\nls '/h o'\\''me/t/user-data'/workspace`,
  );
});

for (const use of ["local", "bwrap"] as const) {
  test(`skills.container_path is honoured by the file tools and bash (${use})`, async (t) => {
    if (use === "bwrap") {
      const { bwrapUnavailableReason } = await import("../testing/sandbox.js");
      const reason = bwrapUnavailableReason();
      if (reason) return t.skip(reason);
    }
    const kit = createTestSandbox({
      use,
      skillsContainerPath: "/opt/deer-skills",
      skills: { "public/demo/SKILL.md": "---\nname: demo\n---\nbody-canary\n" },
    });
    t.after(() => kit.cleanup());
    assert.match(
      await kit.text("read_file", { description: "r", path: "/opt/deer-skills/public/demo/SKILL.md" }),
      /body-canary/,
    );
    assert.match(
      await kit.text("bash", { description: "b", command: "cat /opt/deer-skills/public/demo/SKILL.md" }),
      /body-canary/,
    );
    assert.match(await kit.text("ls", { description: "l", path: "/opt/deer-skills" }), /public/);
    assert.match(
      await kit.text("write_file", { description: "w", path: "/opt/deer-skills/x.md", content: "x" }),
      /read-only/,
    );
    assert.match(
      await kit.text("read_file", { description: "r", path: "/mnt/skills/public/demo/SKILL.md" }),
      /^Error: Access denied/,
    );
  });
}

test("an unusable skills.container_path is a config error", () => {
  for (const bad of ["skills", "/mnt/user-data/skills", "/", "/usr/share/skills", "/a/../b", "/my skills"]) {
    assert.throws(() => new PathPolicy({ userDataDir: "/tmp/x", skillsVirtualPath: bad }), /skills\.container_path/);
  }
});

test("host commands start from an allow-listed environment: no harness secrets, no URL credentials", async (t) => {
  const kit = createTestSandbox({
    use: "local",
    hostEnv: {
      PATH: process.env.PATH,
      LANG: "C.UTF-8",
      GITHUB_PAT: "canary-pat-1",
      MYSQL_PWD: "canary-pwd-2",
      HTTPS_PROXY: "http://user:canary-proxy-3@proxy.example:8080",
      MY_SERVICE_ENDPOINT_CONFIG: "canary-plain-4",
      no_proxy: "localhost",
    },
  });
  t.after(() => kit.cleanup());
  const output = await kit.text("bash", { description: "env", command: "env" });
  for (const canary of ["canary-pat-1", "canary-pwd-2", "canary-proxy-3", "canary-plain-4"])
    assert.ok(!output.includes(canary), `${canary} leaked:\n${output}`);
  assert.match(output, /^PATH=/m);
  assert.match(output, /^LANG=C\.UTF-8$/m);
  assert.match(output, /^no_proxy=localhost$/m);
});

// import.meta.resolve: the provider as this file runs, compiled under npm test (the child runs it with plain
// node), or its source under tsx.
const PROVIDER = import.meta.resolve("./provider.js");
const loaderFor = (url: string) => (url.endsWith(".ts") ? ["--import", "tsx"] : []);

test("the harness's own environment is not readable through /proc/$PPID/environ", async () => {
  // A separate harness process whose initial environment holds a secret, as a real CLI's would.
  const script = `
    import { createSandboxProvider } from ${JSON.stringify(PROVIDER)};
    const home = process.argv[1];
    const provider = createSandboxProvider({ use: "local", home, skillsPath: null, allowHostBash: true, bashTimeoutSeconds: 20, bashOutputMaxChars: 20000 });
    const sandbox = provider.get(provider.acquire("t1"));
    const hidden = "$(printf '\\\\x2fproc')";
    const out = [];
    for (const command of ['cat /proc/$PPID/environ', 'cat "' + hidden + '/$PPID/envi"ron', 'p=$(grep PPid "' + hidden + '/$PPID/status" | cut -f2); cat "' + hidden + '/$p/envi"ron']) {
      const prepared = sandbox.prepareCommand(command);
      out.push(prepared.ok ? (await sandbox.execute(prepared.command)).output : prepared.error);
    }
    console.log(JSON.stringify(out));
    await provider.shutdown();
  `;
  const home = createTempHome({ prefix: "deerflow-environ-" });
  try {
    const result = spawnSync(
      process.execPath,
      [...loaderFor(PROVIDER), "--input-type=module", "-e", script, home.path],
      {
        encoding: "utf8",
        env: { ...process.env, DEERFLOW_TEST_SECRET_KEY: "canary-harness-secret-5" },
        timeout: 60_000,
      },
    );
    assert.equal(result.status, 0, result.stderr);
    assert.ok(!result.stdout.includes("canary-harness-secret-5"), `the harness secret leaked: ${result.stdout}`);
  } finally {
    home.cleanup();
  }
});

test("background processes (nohup, setsid, (cmd &)) end with the command", async (t) => {
  const kit = createTestSandbox({ use: "local" });
  t.after(() => kit.cleanup());
  const ws = "/mnt/user-data/workspace";
  const command = [
    `nohup bash -c 'echo $$ > ${ws}/p1; exec sleep 60' >/dev/null 2>&1 &`,
    `setsid bash -c 'echo $$ > ${ws}/p2; exec sleep 61' >/dev/null 2>&1 &`,
    `(bash -c 'echo $$ > ${ws}/p3; exec sleep 62' >/dev/null 2>&1 &)`,
    `sleep 0.3; echo started`,
  ].join("\n");
  assert.match(await kit.text("bash", { description: "bg", command }), /started/);
  const alive = (pid: number) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      return !/^\d+ \(.*\) [ZX]/.test(stat);
    } catch {
      return false;
    }
  };
  const pids = ["p1", "p2", "p3"].map((name) =>
    Number(fs.readFileSync(path.join(kit.sandbox.paths.workspace_path, name), "utf8").trim()),
  );
  for (let i = 0; i < 50 && pids.some(alive); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  const survivors = pids.filter(alive);
  for (const pid of survivors) process.kill(pid, "SIGKILL");
  assert.deepEqual(survivors, [], "background processes outlived the command");
});

test("the environ guard refuses the file, not code that mentions os.environ", async (t) => {
  const kit = createTestSandbox({ use: "local" });
  t.after(() => kit.cleanup());
  assert.match(
    await kit.text("bash", { description: "b", command: "cd /proc/self && cat environ" }),
    /^Error: Access denied/,
  );
  assert.match(await kit.text("bash", { description: "b", command: "cat environ" }), /process environments/);
  assert.equal(
    await kit.text("bash", { description: "b", command: `echo "print('PATH' in os.environ)"` }),
    "print('PATH' in os.environ)\n",
  );
});

test("exit codes and timeouts come back through the launcher", async (t) => {
  const kit = createTestSandbox({ use: "local", bashTimeoutSeconds: 1 });
  t.after(() => kit.cleanup());
  assert.equal(await kit.text("bash", { description: "b", command: "echo out; exit 3" }), "out\n\n[exit code: 3]");
  assert.equal(await kit.text("bash", { description: "b", command: "echo fine" }), "fine\n");
  assert.match(
    await kit.text("bash", { description: "b", command: "echo before; sleep 5" }),
    /^Error: Command timed out after 1 seconds.*\nOutput before the timeout:\nbefore/s,
  );
});

test("ln -s / root && cat root/etc/passwd is refused on the local provider, and legitimate '/' still runs", async (t) => {
  const kit = createTestSandbox({ use: "local" });
  t.after(() => kit.cleanup());
  const passwdFirstLine = fs.readFileSync("/etc/passwd", "utf8").split("\n")[0]!;
  for (const command of [
    "ln -s / root && cat root/etc/passwd",
    "ln -s /. root && cat root/etc/passwd",
    "bash -c 'ln -s / root && cat root/etc/passwd'",
    "cat /?tc/passwd",
    "cat /*/passwd",
  ]) {
    const output = await kit.text("bash", { description: "escape", command });
    assert.match(output, /^Error: Access denied/, command);
    assert.ok(!output.includes(passwdFirstLine), `${command} showed /etc/passwd`);
  }
  assert.deepEqual(fs.readdirSync(kit.sandbox.paths.workspace_path), [], "no link was made in the workspace");
  const text = await kit.text("bash", {
    description: "slash as text",
    command: "echo a/b/c | cut -d / -f 2 && expr 9 / 3 && python3 -c 'print(8 / 2)'",
  });
  assert.equal(text.trim(), "b\n3\n4.0");
});
