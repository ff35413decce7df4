import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createLeadAgent } from "../agent/create-lead-agent.js";
import { renderLeadPrompt } from "../agent/prompt.js";
import { parseConfigText } from "../config/load-config.js";
import { ConfigError } from "../errors.js";
import { createTestSandbox } from "../testing/sandbox.js";
import { tempHome } from "../testing/temp-home.js";
import { buildBwrapArgs } from "./bwrap-args.js";
import { PathPolicy, validateMounts } from "./path-policy.js";

/** Two host directories: `ro` (read-only at /mnt/data) and `rw` (read-write at /mnt/scratch). */
function mountDirs(t: Parameters<typeof tempHome>[0]) {
  const root = tempHome(t);
  const ro = path.join(root, "ro");
  const rw = path.join(root, "rw");
  fs.mkdirSync(ro);
  fs.mkdirSync(rw);
  fs.writeFileSync(path.join(ro, "facts.txt"), "the sky is blue\n");
  const mounts = [
    { hostPath: ro, containerPath: "/mnt/data", readOnly: true },
    { hostPath: rw, containerPath: "/mnt/scratch", readOnly: false },
  ];
  return { root, ro, rw, mounts };
}

test("the path policy maps mounts, refuses writes to a read-only one and symlinks out of them", (t) => {
  const { root, ro, rw, mounts } = mountDirs(t);
  const policy = new PathPolicy({ userDataDir: path.join(root, "user-data"), mounts });
  const read = policy.resolve("/mnt/data/facts.txt", "read");
  assert.ok(read.ok && read.hostPath === path.join(ro, "facts.txt") && read.area === "mount");
  const write = policy.resolve("/mnt/data/new.txt", "write");
  assert.ok(!write.ok && /\/mnt\/data is a read-only mount/.test(write.error));
  assert.ok(policy.resolve("/mnt/scratch/out.txt", "write").ok);
  assert.ok(!policy.resolve("/mnt/database/x", "read").ok, "prefixes are separator-aware");
  fs.symlinkSync("/etc", path.join(rw, "escape"));
  const escaped = policy.resolve("/mnt/scratch/escape/hostname", "read");
  assert.ok(!escaped.ok && /outside the sandbox/.test(escaped.error));
  assert.equal(policy.toVirtual(path.join(ro, "facts.txt")), "/mnt/data/facts.txt");
});

test("validateMounts refuses container paths that overlap the sandbox's own, and host paths that are not directories", (t) => {
  const { ro } = mountDirs(t);
  const refuse = (containerPath: string, hostPath = ro) =>
    assert.throws(
      () => validateMounts([{ hostPath, containerPath, readOnly: true }], "/mnt/skills"),
      (error: unknown) => error instanceof ConfigError && /sandbox\.mounts\[0\]/.test(error.message),
    );
  refuse("/mnt/user-data/extra");
  refuse("/mnt/skills/more");
  refuse("relative/path");
  refuse("/usr/local/data");
  refuse("/mnt/data", path.join(ro, "missing"));
  assert.throws(
    () =>
      validateMounts(
        [
          { hostPath: ro, containerPath: "/mnt/data", readOnly: true },
          { hostPath: ro, containerPath: "/mnt/data/sub", readOnly: false },
        ],
        "/mnt/skills",
      ),
    /sandbox\.mounts\[1\]\.container_path "\/mnt\/data\/sub" overlaps the mount at \/mnt\/data/,
  );
});

test("bubblewrap binds a read-only mount with --ro-bind and a writable one with --bind", () => {
  const args = buildBwrapArgs({
    userDataDir: "/h/user-data",
    etcDir: "/h/etc",
    env: {},
    command: "true",
    mounts: [
      { hostPath: "/srv/ro", containerPath: "/mnt/data", readOnly: true },
      { hostPath: "/srv/rw", containerPath: "/mnt/scratch", readOnly: false },
    ],
  });
  const text = args.join(" ");
  assert.match(text, /--ro-bind \/srv\/ro \/mnt\/data/);
  assert.match(text, /--bind \/srv\/rw \/mnt\/scratch/);
  assert.ok(text.indexOf("/mnt/data") < text.indexOf("--remount-ro"), "mounts come before the root is remounted");
});

test("local sandbox: tools and bash read a mount by its container path; writes to a read-only mount are refused", async (t) => {
  const { ro, rw, mounts } = mountDirs(t);
  const kit = createTestSandbox({ mounts });
  t.after(() => kit.cleanup());
  assert.match(await kit.text("read_file", { description: "read", path: "/mnt/data/facts.txt" }), /the sky is blue/);
  assert.match(await kit.text("bash", { description: "cat", command: "cat /mnt/data/facts.txt" }), /the sky is blue/);
  assert.match(
    await kit.text("write_file", { description: "w", path: "/mnt/data/x.txt", content: "no" }),
    /read-only mount/,
  );
  assert.match(await kit.text("bash", { description: "w", command: "echo no > /mnt/data/x.txt" }), /read-only mount/);
  assert.equal(fs.existsSync(path.join(ro, "x.txt")), false);
  await kit.text("write_file", { description: "w", path: "/mnt/scratch/y.txt", content: "yes" });
  assert.equal(fs.readFileSync(path.join(rw, "y.txt"), "utf8"), "yes");
});

test("sandbox.mounts in config.yaml reach the prompt; a missing host directory fails when the agent is built", async (t) => {
  const { ro } = mountDirs(t);
  const home = tempHome(t);
  const config = (hostPath: string) =>
    parseConfigText(
      "models:\n  - {name: demo, use: demo}\nmemory: {enabled: false}\ntitle: {enabled: false}\n" +
        `sandbox:\n  use: local\n  mounts:\n    - {host_path: '${hostPath}', container_path: /mnt/data, read_only: true}\n`,
      { source: "config.yaml", env: {} },
    );
  assert.match(
    renderLeadPrompt({
      skills: [],
      skillsContainerPath: "/mnt/skills",
      bashAvailable: false,
      date: "2026-01-01, Thursday",
      mounts: [{ containerPath: "/mnt/data", readOnly: true }],
    }),
    /- \/mnt\/data: a mounted directory, read-only\.\n/,
  );
  const agent = await createLeadAgent(config(ro), { home, env: {} });
  await agent.close();
  await assert.rejects(
    createLeadAgent(config(path.join(ro, "missing")), { home, env: {} }),
    /sandbox\.mounts\[0\]\.host_path ".*missing" is not an existing directory/,
  );
});
