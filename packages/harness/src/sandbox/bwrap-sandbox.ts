/**
 * The bubblewrap provider's sandbox and the one-time check that bubblewrap actually works here.
 * Finding a `bwrap` binary is not enough (user namespaces may be disabled, seccomp may block it), so
 * `probeBwrap` runs one real command with the exact arguments used later.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildBwrapArgs } from "./bwrap-args.js";
import { checkCommandPaths, SAFE_DEVICE_PATHS, SYSTEM_READ_ONLY_PREFIXES } from "./command-paths.js";
import { bwrapBaseEnv } from "./env.js";
import type { Sandbox } from "./sandbox.js";
import { createThreadSandbox, type ThreadSandboxBase } from "./thread-sandbox.js";

/** What the bwrap provider passes in for one thread. */
export interface BwrapSandboxOptions extends ThreadSandboxBase {
  bwrapPath: string;
  etcDir: string;
}

/** Paths a command may name under bubblewrap besides the virtual roots: its own private /tmp and /proc. */
const BWRAP_READ_ONLY = [...SYSTEM_READ_ONLY_PREFIXES, "/proc"];
const BWRAP_WRITABLE = [...SAFE_DEVICE_PATHS, "/tmp"];

/** Builds a thread's bubblewrap sandbox. */
export function createBwrapSandbox(options: BwrapSandboxOptions): Sandbox {
  const { policy } = options;
  return createThreadSandbox({
    id: options.id,
    threadId: options.threadId,
    kind: "bwrap",
    paths: options.paths,
    policy,
    defaultTimeoutSeconds: options.bashTimeoutSeconds,
    defaultMaxOutputChars: options.bashOutputMaxChars,
    prepare(command) {
      const error = checkCommandPaths(command, policy, {
        readOnlyPrefixes: BWRAP_READ_ONLY,
        writablePrefixes: BWRAP_WRITABLE,
      });
      return error ? { ok: false, error } : { ok: true, command };
    },
    spawnSpec(command) {
      const args = buildBwrapArgs({
        userDataDir: policy.userDataDir,
        skillsDir: policy.skillsDir,
        skillsMount: policy.skillsVirtualPath,
        mounts: policy.mounts,
        etcDir: options.etcDir,
        env: bwrapBaseEnv(),
        command,
      });
      return { file: options.bwrapPath, args, env: { PATH: "/usr/bin:/bin" } };
    },
  });
}

/** Finds an executable on a PATH string; undefined when absent. */
export function findExecutable(name: string, searchPath: string | undefined): string | undefined {
  for (const dir of (searchPath ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Result of {@link probeBwrap}. */
export type BwrapProbe = { ok: true } | { ok: false; reason: string };

/** Runs `echo` inside a throwaway sandbox built exactly like a real one. Takes ~0.1 s. */
export function probeBwrap(bwrapPath: string, etcDir: string): BwrapProbe {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "deerflow-bwrap-probe-"));
  try {
    fs.mkdirSync(path.join(scratch, "workspace"));
    const marker = "deerflow-bwrap-ok";
    const args = buildBwrapArgs({ userDataDir: scratch, etcDir, env: bwrapBaseEnv(), command: `echo ${marker}` });
    const result = spawnSync(bwrapPath, args, { encoding: "utf8", timeout: 15_000, env: { PATH: "/usr/bin:/bin" } });
    if (result.error) return { ok: false, reason: `running ${bwrapPath} failed: ${result.error.message}` };
    if (result.stdout.trim() === marker) return { ok: true };
    const detail = (result.stderr || result.stdout || `exit code ${result.status}`).trim().split("\n")[0];
    return { ok: false, reason: `${bwrapPath} is installed but cannot create a sandbox here (${detail})` };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
