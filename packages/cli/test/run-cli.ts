/** Runs the built `deerflow` binary as a user would: a subprocess with its own working directory. */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/bin/main.js");

/** What a finished CLI process left behind. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A clean environment: no API keys, home under `cwd`. */
export function cliEnv(cwd: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "", DEER_FLOW_HOME: path.join(cwd, ".deer-flow") };
}

/** Runs `deerflow ...args` in `cwd`; `input`, when given, is written to its stdin. */
export function deerflow(
  cwd: string,
  args: string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...cliEnv(cwd), ...options.env },
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => (stdout += chunk));
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

/** A `deerflow` process left running, for tests that signal it or run a second one beside it. */
export interface RunningCli {
  child: ReturnType<typeof spawn>;
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves once stderr matches `pattern`. */
  waitForStderr(pattern: RegExp): Promise<void>;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `deerflow ...args` in `cwd` without waiting for it. */
export function startDeerflow(cwd: string, args: string[], options: { env?: Record<string, string> } = {}): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { ...cliEnv(cwd), ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => {
    stderr += chunk;
    for (const waiter of [...waiters]) if (waiter.pattern.test(stderr)) waiter.resolve();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    waitForStderr(pattern) {
      if (pattern.test(stderr)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        void exited.then(() =>
          pattern.test(stderr) ? resolve() : reject(new Error(`exited before stderr matched ${pattern}:\n${stderr}`)),
        );
      });
    },
    exited,
  };
}
