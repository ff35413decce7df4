/**
 * `deerflow serve`: the LangGraph-compatible agent server (SDK Client, useStream, agent-chat-ui,
 * DeerFlow's frontend). Binds 127.0.0.1 unless told otherwise and refuses a non-loopback host without
 * API keys unless `--insecure`. SIGTERM/SIGINT drain: no new runs, running ones get a grace period,
 * the rest resume on the next start; a second signal exits at once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHarness, loadConfig, openPostgresThreadLeases, openThreadLeases } from "@deerflow/harness";
import { createServer, isLoopbackHost, resolveApiKeys } from "@deerflow/server";
import { UsageError } from "../usage-error.js";
import { parseCommandArgs } from "../command-args.js";

/** How long a run waits for a thread another process is running before it fails as busy. */
const LEASE_WAIT_MS = 120_000;

/** Entry point of `deerflow serve`. */
export async function main(argv: string[]): Promise<number> {
  const values = parseCommandArgs("serve", {
    args: argv,
    options: {
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "2026" },
      config: { type: "string" },
      insecure: { type: "boolean", default: false },
      "api-only": { type: "boolean", default: false },
      "worker-only": { type: "boolean", default: false },
      workers: { type: "string" },
    },
    strict: true,
  }).values;
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port "${values.port}" is not a port number (0-65535).`);
  const host = values.host!;
  const config = loadConfig({ path: values.config });
  const workers = values.workers === undefined ? 0 : Number(values.workers);
  if (!Number.isInteger(workers) || workers < 0 || workers > 64)
    throw new UsageError(`--workers "${values.workers}" is not a number of processes (1-64).`);
  const split = values["api-only"] || values["worker-only"] || workers > 0;
  if (values["api-only"] && values["worker-only"])
    throw new UsageError("--api-only and --worker-only exclude each other: run two processes, one with each.");
  if (split && config.database.backend !== "postgres") {
    throw new UsageError(
      "--api-only, --worker-only and --workers need database.backend postgres (the SQLite run queue lives in one process). See docs/deploy.md.",
    );
  }
  if (values["worker-only"]) return workerOnly(config);
  const keys = resolveApiKeys(config.server.api_keys, process.env);
  const say = (line: string) => process.stderr.write(`${line}\n`);
  // One graph per option set and user (memory is per user): room for many people, as DeerFlow (64).
  const harness = await createHarness(config, {
    agentCacheSize: 64,
    onWarning: (message) => say(`warning: ${message}`),
  });
  // The CLI's rule, honoured here too: one run per thread across processes (a `deerflow run --thread T`
  // in progress makes the server's run on T wait, then fail with "thread T is busy").
  // On Postgres the lease lives in the database, so a CLI run on another machine is kept apart too.
  const leaseFile = harness.setup.store?.file;
  const postgres = harness.setup.postgres;
  const leases = postgres
    ? openPostgresThreadLeases(postgres.pool)
    : leaseFile
      ? openThreadLeases(leaseFile)
      : undefined;
  const threadLease = leases
    ? async (threadId: string, signal: AbortSignal) => {
        const lease = await leases.acquire(threadId, { waitMs: LEASE_WAIT_MS, signal });
        return () => void lease.release();
      }
    : undefined;
  const server = createServer(harness, { log: say, threadLease, runWorker: !values["api-only"] && workers === 0 });
  // Accounts guard a public host as keys do, once someone exists to sign in (before that, the first
  // visitor could make themselves admin).
  const users = await server.context.users.count();
  if (!isLoopbackHost(host) && keys.length === 0 && users === 0 && !values.insecure) {
    await server.stop();
    await harness.close();
    throw new UsageError(
      `Refusing to listen on ${host} without API keys or accounts: anyone who can reach it could run the agent. Create the first admin (deerflow users add NAME --admin), or set server.api_keys in config.yaml or DEER_FLOW_API_KEYS, or pass --insecure.`,
    );
  }
  const children = workers > 0 ? spawnWorkers(workers, argv, say) : undefined;
  let address;
  try {
    address = await server.start({ host, port });
  } catch (error) {
    await server.stop();
    await leases?.close();
    await harness.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new UsageError(`Port ${port} on ${host} is in use. Pick another with --port.`);
    throw error;
  }
  const { entry, reason } = harness.defaultModel;
  // Read before the banner, so the whole banner is printed at once: whoever waits for "listening" sees it all.
  const crons = await server.context.crons.countActive();
  const firing = server.context.options.runWorker ? "fired by this process" : "fired by the worker processes";
  process.stdout.write(
    `DeerFlow server listening on ${address.url} (LangGraph API at ${address.url} and ${address.url}/api)\n`,
  );
  say(
    server.webApp
      ? `web app: open ${address.url}/ in a browser`
      : "web app: not built (run npm run build to serve it at /)",
  );
  say(`model: ${entry.name}${entry.use === "demo" ? "" : ` (${entry.use})`}, ${reason}`);
  say(`sandbox: ${harness.sandbox.kind} (${harness.sandbox.reason})`);
  const keyNote = keys.length > 0 ? `, and ${keys.length} server API key(s) acting as the first admin` : "";
  say(
    users > 0 || config.server.auth === "users"
      ? `auth: accounts (${users} user(s): sign in, or send a user's API token${keyNote})`
      : keys.length > 0
        ? `auth: API key required (${keys.length} configured)`
        : "auth: none (no accounts or API keys; deerflow users add NAME --admin turns accounts on)",
  );
  say(`data: ${harness.home}`);
  say(`crons: ${crons} scheduled (${firing}; deerflow cron list shows them)`);

  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: string) => {
      if (stopping) {
        say(`${signal} again: exiting now; unfinished runs resume on the next start.`);
        process.exit(130);
      }
      stopping = true;
      say(`${signal}: draining (running runs get a grace period; press Ctrl-C again to exit now)...`);
      children?.stop(signal);
      server
        .stop()
        .then(() => leases?.close())
        .then(() => harness.close())
        .then(resolve, (error) => {
          say(`shutdown failed: ${(error as Error).message}`);
          resolve();
        });
    };
    process.on("SIGINT", () => onSignal("SIGINT"));
    process.on("SIGTERM", () => onSignal("SIGTERM"));
  });
  await children?.exited;
  say("stopped.");
  return 0;
}

/** `--worker-only`: executes runs from the shared database until a signal, then drains. */
async function workerOnly(config: ReturnType<typeof loadConfig>): Promise<number> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  // One graph per option set and user (memory is per user): room for many people, as DeerFlow (64).
  const harness = await createHarness(config, {
    agentCacheSize: 64,
    onWarning: (message) => say(`warning: ${message}`),
  });
  // Workers take the thread's lease in the database too, so a CLI run on the thread elsewhere waits.
  const leases = harness.setup.postgres ? openPostgresThreadLeases(harness.setup.postgres.pool) : undefined;
  const threadLease = leases
    ? async (threadId: string, signal: AbortSignal) => {
        const lease = await leases.acquire(threadId, { waitMs: LEASE_WAIT_MS, signal });
        return () => void lease.release();
      }
    : undefined;
  const server = createServer(harness, { log: say, threadLease });
  await server.startWorkerOnly();
  say(
    `DeerFlow worker ${process.pid} executing runs from the shared database (up to ${config.server.max_concurrent_runs} at once)`,
  );
  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: string) => {
      if (stopping) process.exit(130);
      stopping = true;
      say(`${signal}: worker ${process.pid} draining...`);
      server
        .stop()
        .then(() => leases?.close())
        .then(() => harness.close())
        .then(resolve, () => resolve());
    };
    process.on("SIGINT", () => onSignal("SIGINT"));
    process.on("SIGTERM", () => onSignal("SIGTERM"));
  });
  say(`worker ${process.pid} stopped.`);
  return 0;
}

/** `--workers N`: N `serve --worker-only` children with this process's arguments; one that dies is restarted. */
function spawnWorkers(
  count: number,
  argv: string[],
  say: (line: string) => void,
): { stop(signal: string): void; exited: Promise<void> } {
  const args = [process.argv[1]!, "serve", "--worker-only", ...passThrough(argv)];
  let stopping = false;
  const running = new Set<ChildProcess>();
  let allExited!: () => void;
  const exited = new Promise<void>((resolve) => (allExited = resolve));
  const start = () => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"], env: process.env });
    running.add(child);
    child.on("exit", (code, signal) => {
      running.delete(child);
      if (stopping) {
        if (running.size === 0) allExited();
        return;
      }
      say(
        `worker ${child.pid} exited (${signal ?? code}); starting another. Its runs resume once their lease expires.`,
      );
      setTimeout(start, 1000).unref();
    });
  };
  for (let index = 0; index < count; index += 1) start();
  return {
    stop(signal) {
      stopping = true;
      if (running.size === 0) allExited();
      for (const child of running) child.kill(signal as NodeJS.Signals);
    },
    exited,
  };
}

/** The arguments a worker child inherits (--config), without the ones that only concern the API process. */
function passThrough(argv: string[]): string[] {
  const out: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (arg === "--config") out.push(arg, argv[++index] ?? "");
    else if (arg.startsWith("--config=")) out.push(arg);
  }
  return out;
}
