/**
 * Runs one sandboxed command as its own process group, with a wall-clock timeout, cancellation, and a
 * bounded output buffer. Shared by both providers so "killed at its timeout" and "50 MB of output"
 * behave the same under bubblewrap and on the host.
 */
import { spawn } from "node:child_process";
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
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
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
    child.on("error", (error) => finish(error.message));
    child.on("exit", (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      drainTimer = setTimeout(() => finish(), DRAIN_AFTER_EXIT_MS);
    });
    child.on("close", () => finish());
  });
}
