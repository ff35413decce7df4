/**
 * `deerflow serve` as a child process, for tests and benches that run the real command: it listens on a
 * port the OS picks (`--port 0`) and prints "listening on URL", so `url()` waits for that line instead
 * of guessing a port, and fails with the server's stderr when the process exits first.
 *
 * The kit lives in the harness, which does not depend on the CLI, so callers pass the path of the built
 * CLI (`packages/cli/dist/bin/main.js`).
 */
import { type ChildProcess, spawn } from "node:child_process";

/** Options of {@link spawnServe}. */
export interface SpawnServeOptions {
  /** The child's environment, merged over `process.env` (set DEER_FLOW_HOME here). */
  env?: Record<string, string>;
  cwd?: string;
  /** Node options before the CLI's path (e.g. `--cpu-prof`, which NODE_OPTIONS does not accept). */
  nodeArgs?: string[];
}

/** A running (or exited) `deerflow serve`. */
export interface ServeProcess {
  child: ChildProcess;
  /** Everything printed so far. */
  out: { stdout: string; stderr: string };
  /** The exit code (null when killed by a signal), once the process has exited. */
  exited: Promise<number | null>;
  /** Resolves with the URL the server printed; rejects when the process exits first or after `timeoutMs`. */
  url(timeoutMs?: number): Promise<string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. Safe to call after exit. */
  stop(graceMs?: number): Promise<number | null>;
}

const LISTENING = /listening on (http:\/\/\S+)/;

/**
 * Starts `node <cli> serve ...args`. Pass `--port 0` (and `--config`) in `args`.
 *
 * @example
 * ```ts
 * const server = spawnServe(cli, ["--port", "0", "--config", config], { env: { DEER_FLOW_HOME: home } });
 * t.after(() => server.stop());
 * const client = new Client({ apiUrl: await server.url() });
 * ```
 */
export function spawnServe(cli: string, args: string[], options: SpawnServeOptions = {}): ServeProcess {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), cli, "serve", ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (chunk) => (out.stdout += chunk));
  child.stderr!.on("data", (chunk) => (out.stderr += chunk));
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  let closed = false;
  child.once("close", () => (closed = true));
  return {
    child,
    out,
    exited,
    url(timeoutMs = 30_000) {
      return new Promise<string>((resolve, reject) => {
        const check = () => {
          const match = LISTENING.exec(out.stdout);
          if (!match) return false;
          done();
          resolve(match[1]!);
          return true;
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`deerflow serve printed no URL within ${timeoutMs} ms. stderr:\n${out.stderr}`));
        }, timeoutMs);
        const onExit = (code: number | null) => {
          if (check()) return;
          done();
          reject(new Error(`deerflow serve exited (${code}) before listening. stderr:\n${out.stderr}`));
        };
        const done = () => {
          clearTimeout(timer);
          child.stdout!.off("data", check);
          child.off("close", onExit);
        };
        if (check()) return;
        if (closed) return onExit(exitCode ?? null);
        child.stdout!.on("data", check);
        child.once("close", onExit);
      });
    },
    async stop(graceMs = 5000) {
      if (exitCode === undefined) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}
