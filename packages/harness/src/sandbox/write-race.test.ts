/**
 * Races against the file tools: a shell loop swaps a workspace directory for a symlink to a decoy
 * directory outside the thread while many `write_file` / `str_replace` calls write below it. Nothing
 * may ever be created in the decoy (no directory, no file), and FIFOs never hang a file tool.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { bwrapUnavailableReason, createTestSandbox } from "../testing/sandbox.js";
import { tempHome } from "../testing/temp-home.js";

function startSwapper(workspace: string, decoy: string) {
  // Atomic renames in a tight loop: `x` is a real directory half of the time, a link to the decoy the other half.
  const script =
    'chdir $ARGV[0] or die; mkdir "xd"; symlink($ARGV[1], "xl"); while (1) { rename "xd", "x"; rename "x", "xd"; rename "xl", "x"; rename "x", "xl"; }';
  return spawn("perl", ["-e", script, workspace, decoy], { stdio: "ignore" });
}

/** Forty parallel write_file calls below workspace/x, the path the swap keeps turning into a link. */
function writeRound(kit: ReturnType<typeof createTestSandbox>, round: number) {
  return Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      kit.text("write_file", {
        description: "w",
        path: `/mnt/user-data/workspace/x/sub${round}-${i}/deep/f.txt`,
        content: "hi",
      }),
    ),
  );
}

test("parallel write_file under a directory/symlink swap never creates anything outside the thread", async (t) => {
  const kit = createTestSandbox({ use: "local" });
  const decoy = tempHome(t, { prefix: "deerflow-race-decoy-" });
  t.after(() => kit.cleanup());
  const swapper = startSwapper(kit.sandbox.paths.workspace_path, decoy);
  try {
    for (let round = 0; round < 8; round += 1) {
      await writeRound(kit, round);
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          kit.text("str_replace", {
            description: "e",
            path: `/mnt/user-data/workspace/x/sub${round}-${i}/deep/f.txt`,
            old_str: "hi",
            new_str: "ho",
          }),
        ),
      );
    }
  } finally {
    swapper.kill("SIGKILL");
  }
  assert.deepEqual(fs.readdirSync(decoy), [], "nothing may be created in the decoy directory outside the thread");
});

test("under bwrap, a swap made by the agent's own bash never makes write_file create anything outside", async (t) => {
  const reason = bwrapUnavailableReason();
  if (reason) return t.skip(reason);
  const kit = createTestSandbox({ use: "bwrap" });
  const decoy = tempHome(t, { prefix: "deerflow-race-decoy-" });
  t.after(() => kit.cleanup());
  // The link's target is a host path: dangling inside the sandbox, but the harness would follow it.
  const hidden = [...decoy].map((c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join("");
  const script =
    'mkdir "xd"; symlink($ARGV[0], "xl"); while (!-e "stop") { rename "xd", "x"; rename "x", "xd"; rename "xl", "x"; rename "x", "xl"; }';
  const swapping = kit.text("bash", {
    description: "swap",
    command: `touch started; perl -e '${script}' "$(printf '${hidden}')"; echo swapped`,
  });
  const ws = kit.sandbox.paths.workspace_path;
  for (let i = 0; i < 100 && !fs.existsSync(path.join(ws, "started")); i += 1)
    await new Promise((resolve) => setTimeout(resolve, 50));
  try {
    for (let round = 0; round < 8; round += 1) {
      await writeRound(kit, round);
    }
  } finally {
    fs.writeFileSync(path.join(ws, "stop"), "");
  }
  assert.match(await swapping, /swapped/);
  assert.deepEqual(fs.readdirSync(decoy), [], "nothing may be created in the decoy directory outside the thread");
});

test("read_file and write_file refuse a FIFO at once instead of hanging", async (t) => {
  const kit = createTestSandbox({ use: "local" });
  t.after(() => kit.cleanup());
  const fifo = path.join(kit.sandbox.paths.workspace_path, "pipe");
  await new Promise<void>((resolve, reject) =>
    spawn("mkfifo", [fifo]).on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo exited ${code}`)))),
  );
  const withDeadline = <T>(promise: Promise<T>) =>
    Promise.race([promise, new Promise<string>((resolve) => setTimeout(() => resolve("HUNG"), 5000).unref())]);
  for (const [name, args] of [
    ["read_file", { description: "r", path: "/mnt/user-data/workspace/pipe" }],
    ["read_file", { description: "r", path: "/mnt/user-data/workspace/pipe", start_line: 1, end_line: 2 }],
    ["write_file", { description: "w", path: "/mnt/user-data/workspace/pipe", content: "x" }],
    ["write_file", { description: "w", path: "/mnt/user-data/workspace/pipe", content: "x", append: true }],
    ["str_replace", { description: "e", path: "/mnt/user-data/workspace/pipe", old_str: "a", new_str: "b" }],
    ["grep", { description: "g", pattern: "x", path: "/mnt/user-data/workspace/pipe" }],
  ] as const) {
    const text = await withDeadline(kit.text(name, args));
    assert.notEqual(text, "HUNG", `${name} hung on a FIFO`);
    assert.match(text, /not a regular file|No matches/, `${name}: ${text}`);
  }
  assert.ok(fs.lstatSync(fifo).isFIFO(), "the FIFO is left alone");
});

test("uploads never land outside while the uploads directory is swapped for a link", async (t) => {
  const { saveUploads } = await import("../uploads/save-uploads.js");
  const { threadUserDataDir } = await import("./virtual-paths.js");
  const home = tempHome(t, { prefix: "deerflow-upload-race-", files: { "source.txt": "upload" } });
  const decoy = tempHome(t, { prefix: "deerflow-race-decoy-" });
  const source = path.join(home, "source.txt");
  await saveUploads(home, "t1", [source]);
  const userData = threadUserDataDir(home, "t1");
  const script =
    'chdir $ARGV[0] or die; symlink($ARGV[1], "ul"); while (1) { rename "uploads", "ud"; rename "ul", "uploads"; rename "uploads", "ul"; rename "ud", "uploads"; }';
  const swapper = spawn("perl", ["-e", script, userData, decoy], { stdio: "ignore" });
  const swapperExited = new Promise((resolve) => swapper.once("exit", resolve));
  try {
    for (let round = 0; round < 10; round += 1) {
      await Promise.all(Array.from({ length: 30 }, () => saveUploads(home, "t1", [source]).catch(() => undefined)));
    }
  } finally {
    swapper.kill("SIGKILL");
    // The temp home is removed after the test: a swapper still renaming in it fails that removal.
    await swapperExited;
  }
  assert.deepEqual(fs.readdirSync(decoy), [], "nothing may be uploaded into the decoy directory");
});
