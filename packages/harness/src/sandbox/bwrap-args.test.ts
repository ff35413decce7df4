import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SANDBOX_ETC_FILES, buildBwrapArgs, writeSandboxEtc } from "./bwrap-args.js";
import { tempHome } from "../testing/temp-home.js";

/** Pairs "--flag a b" triples/quads into readable strings for assertions. */
function joined(args: string[]): string {
  return args.join(" ");
}

test("the bwrap command line isolates everything but the thread's user-data", () => {
  const args = buildBwrapArgs({
    userDataDir: "/h/threads/t1/user-data",
    skillsDir: os.tmpdir(),
    etcDir: "/h/sandbox/etc",
    env: { PATH: "/usr/bin" },
    command: "echo hi",
  });
  const line = joined(args);
  for (const flag of [
    "--unshare-all",
    "--unshare-user",
    "--die-with-parent",
    "--new-session",
    "--clearenv",
    "--cap-drop ALL",
  ]) {
    assert.ok(line.includes(flag), flag);
  }
  assert.ok(line.includes("--uid 1000 --gid 1000"), "an unprivileged uid, even when the harness runs as root");
  assert.ok(
    line.includes("--bind /h/threads/t1/user-data /mnt/user-data"),
    "only the thread's user-data is read-write",
  );
  assert.equal(args.filter((arg) => arg === "--bind").length, 1, "exactly one read-write bind");
  assert.ok(line.includes(`--ro-bind ${os.tmpdir()} /mnt/skills`));
  assert.ok(line.includes("--ro-bind /usr /usr"));
  assert.ok(line.includes("--tmpfs /tmp"));
  assert.ok(line.includes("--ro-bind /h/sandbox/etc/passwd /etc/passwd"), "a generated passwd, never the host's");
  assert.ok(!line.includes("--ro-bind /etc /etc") && !line.includes("--bind /etc"), "host /etc is never bound whole");
  assert.ok(line.includes("--remount-ro / --chdir /mnt/user-data/workspace"));
  assert.deepEqual(args.slice(-3), ["/bin/bash", "-c", "echo hi"]);
  assert.ok(line.includes("--setenv PATH /usr/bin"));
});

test("the skills bind is left out when the directory does not exist", () => {
  const args = buildBwrapArgs({ userDataDir: "/u", skillsDir: "/no/such/dir", etcDir: "/e", env: {}, command: "true" });
  assert.ok(!args.includes("/mnt/skills"));
});

test("the generated /etc is written once and has no host accounts", (t) => {
  const dir = tempHome(t, { prefix: "etc-test-" });
  writeSandboxEtc(dir);
  writeSandboxEtc(dir);
  assert.deepEqual(fs.readdirSync(dir).sort(), Object.keys(SANDBOX_ETC_FILES).sort());
  assert.match(fs.readFileSync(path.join(dir, "passwd"), "utf8"), /^sandbox:x:1000:1000:/m);
});
