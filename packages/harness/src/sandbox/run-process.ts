/**
 * Runs one sandboxed command as its own session and process group, with a wall-clock timeout,
 * cancellation, and a bounded output buffer. Shared by both providers so "killed at its timeout" and
 * "50 MB of output" behave the same under bubblewrap and on the host. When the command's main process
 * ends, the whole group is killed, so `nohup cmd &` or `(cmd &)` cannot outlive it; processes that
 * left the group (`setsid`) are found by a marker variable in their environment and killed too.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { CappedText } from "./truncate.js";

/** What to run and within which limits. */
export interface RunProcessOptions {
  file: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  /** Wall-clock limit; the whole process group gets SIGKILL when it passes. */
  timeoutMs: number;
  /** Combined stdout+stderr kept, middle-truncated beyond this many characters. */
  maxOutputChars: number;
  /** Aborting kills the process group too (run cancelled by the user). */
  signal?: AbortSignal;
  /**
   * The spawned process is a launcher that exits at once; the real exit status arrives as a decimal
   * number on file descriptor 3 (see `local-sandbox.ts`). Completion is when fd 3 closes.
   */
  statusPipe?: boolean;
  /** `NAME=value` present in the command's environment: processes carrying it are killed at the end. */
  marker?: string;
}

/** Outcome of a command. `output` is stdout and stderr interleaved in arrival order. */
export interface RunProcessResult {
  output: string;
  /** Characters the command printed in total (before truncation). */
  totalChars: number;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the process could not be started at all. */
  spawnError?: string;
}

/** After the main process exits, how long to wait for background children to release the pipes. */
const DRAIN_AFTER_EXIT_MS = 300;

/** Spawns `file args` detached (new process group), stdin closed. Never rejects. */
export function runProcess(options: RunProcessOptions): Promise<RunProcessResult> {
  return new Promise((resolve) => {
    const sink = new CappedText(Math.max(1, options.maxOutputChars));
    let timedOut = false;
    let aborted = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;

    const child = spawn(options.file, options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: options.statusPipe ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
      if (options.marker) killMarked(options.marker);
    };
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    const finish = (spawnError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (drainTimer) clearTimeout(drainTimer);
      options.signal?.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({
        output: sink.render(),
        totalChars: sink.length,
        exitCode,
        exitSignal,
        timedOut,
        aborted,
        ...(spawnError ? { spawnError } : {}),
      });
    };

    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding("utf8");
      stream?.on("data", (chunk: string) => sink.append(chunk));
    }
    let mainDone = false;
    const mainExited = () => {
      mainDone = true;
      // Whatever the command left running in the background ends with it.
      killGroup();
      drainTimer = setTimeout(() => finish(), DRAIN_AFTER_EXIT_MS);
    };
    child.on("error", (error) => finish(error.message));
    const status = options.statusPipe ? (child.stdio[3] as NodeJS.ReadableStream | undefined) : undefined;
    if (status) {
      let text = "";
      status.setEncoding("utf8");
      status.on("data", (chunk: string) => {
        text = (text + chunk).slice(0, 32);
      });
      status.on("error", () => undefined);
      status.on("close", () => {
        const code = /^\d+/.exec(text.trim());
        if (code) {
          const value = Number(code[0]);
          // bash reports a command killed by signal N as 128+N.
          const signal = value > 128 ? signalName(value - 128) : null;
          if (signal) exitSignal = signal;
          else exitCode = value;
        } else {
          exitSignal = "SIGKILL";
        }
        mainExited();
      });
    } else {
      child.on("exit", (code, signal) => {
        exitCode = code;
        exitSignal = signal;
        mainExited();
      });
    }
    child.on("close", () => {
      if (!status || mainDone) finish();
    });
  });
}

function signalName(number: number): NodeJS.Signals | null {
  const names: Partial<Record<number, NodeJS.Signals>> = {
    1: "SIGHUP",
    2: "SIGINT",
    3: "SIGQUIT",
    6: "SIGABRT",
    9: "SIGKILL",
    13: "SIGPIPE",
    14: "SIGALRM",
    15: "SIGTERM",
  };
  return names[number] ?? null;
}

/**
 * Kills every process of ours whose environment holds `marker` (`NAME=value`): the ones that left the
 * command's process group with `setsid`. Linux only; elsewhere (no `/proc`) nothing happens.
 */
export function killMarked(marker: string): void {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return;
  }
  const needle = Buffer.from(`\0${marker}\0`);
  const first = Buffer.from(`${marker}\0`);
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = fs.readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue;
    }
    if (environ.includes(needle) || environ.subarray(0, first.length).equals(first)) {
      try {
        process.kill(Number(entry), "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
}
