/**
 * `deerflow serve`: the LangGraph-compatible agent server (SDK Client, useStream, agent-chat-ui,
 * DeerFlow's frontend). Binds 127.0.0.1 unless told otherwise and refuses a non-loopback host without
 * API keys unless `--insecure`. SIGTERM/SIGINT drain: no new runs, running ones get a grace period,
 * the rest resume on the next start; a second signal exits at once.
 */
import { parseArgs } from "node:util";
import { createHarness, loadConfig, openThreadLeases } from "@deerflow/harness";
import { createServer, isLoopbackHost, resolveApiKeys } from "@deerflow/server";
import { UsageError } from "../usage-error.js";

/** How long a run waits for a thread another process is running before it fails as busy. */
const LEASE_WAIT_MS = 120_000;

/** Entry point of `deerflow serve`. */
export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: { host: { type: "string", default: "127.0.0.1" }, port: { type: "string", default: "2026" }, config: { type: "string" }, insecure: { type: "boolean", default: false } },
      strict: true,
    }).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}. See deerflow serve --help.`);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port "${values.port}" is not a port number (0-65535).`);
  const host = values.host!;
  const config = loadConfig({ path: values.config });
  const keys = resolveApiKeys(config.server.api_keys, process.env);
  if (!isLoopbackHost(host) && keys.length === 0 && !values.insecure) {
    throw new UsageError(
      `Refusing to listen on ${host} without API keys: anyone who can reach it could run the agent. Set server.api_keys in config.yaml or DEER_FLOW_API_KEYS, or pass --insecure.`,
    );
  }
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const harness = await createHarness(config, { onWarning: (message) => say(`warning: ${message}`) });
  // The CLI's rule, honoured here too: one run per thread across processes (a `deerflow run --thread T`
  // in progress makes the server's run on T wait, then fail with "thread T is busy").
  const leaseFile = harness.setup.store?.file;
  const leases = leaseFile ? openThreadLeases(leaseFile) : undefined;
  const threadLease = leases
    ? async (threadId: string, signal: AbortSignal) => {
        const lease = await leases.acquire(threadId, { waitMs: LEASE_WAIT_MS, signal });
        return () => lease.release();
      }
    : undefined;
  const server = createServer(harness, { log: say, threadLease });
  let address;
  try {
    address = await server.start({ host, port });
  } catch (error) {
    await server.stop();
    leases?.close();
    await harness.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new UsageError(`Port ${port} on ${host} is in use. Pick another with --port.`);
    throw error;
  }
  const { entry, reason } = harness.defaultModel;
  process.stdout.write(`DeerFlow server listening on ${address.url} (LangGraph API at ${address.url} and ${address.url}/api)\n`);
  say(server.webApp ? `web app: open ${address.url}/ in a browser` : "web app: not built (run npm run build to serve it at /)");
  say(`model: ${entry.name}${entry.use === "demo" ? "" : ` (${entry.use})`}, ${reason}`);
  say(`sandbox: ${harness.sandbox.kind} (${harness.sandbox.reason})`);
  say(`auth: ${keys.length > 0 ? `API key required (${keys.length} configured)` : "none (no API keys configured)"}`);
  say(`data: ${harness.home}`);

  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: string) => {
      if (stopping) {
        say(`${signal} again: exiting now; unfinished runs resume on the next start.`);
        process.exit(130);
      }
      stopping = true;
      say(`${signal}: draining (running runs get a grace period; press Ctrl-C again to exit now)...`);
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
  say("stopped.");
  return 0;
}
