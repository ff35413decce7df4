/**
 * Child process of `npm run bench -- server`: the peer server, `@langchain/langgraph-api` from
 * bench/peer (installed there by the bench), in memory, serving bench/peer-graph.ts as `lead_agent`
 * on an OS-chosen port. Prints `peer listening on <url>` once it accepts requests.
 * Run as `node --import tsx bench/peer-serve.ts <scratch dir>`.
 */
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const cwd = process.argv[2];
if (!cwd) throw new Error("usage: node --import tsx bench/peer-serve.ts <scratch dir>");

const entry = path.join(here, "peer/node_modules/@langchain/langgraph-api/dist/server.mjs");
const { startServer } = (await import(pathToFileURL(entry).href)) as {
  startServer: (options: Record<string, unknown>) => Promise<{ host: string; cleanup: () => Promise<void> }>;
};
const { host, cleanup } = await startServer({
  port: 0,
  nWorkers: 10,
  host: "127.0.0.1",
  cwd,
  graphs: { lead_agent: `${path.join(here, "peer-graph.ts")}:graph` },
});
process.stdout.write(`peer listening on http://${host}\n`);
process.once("SIGTERM", () => {
  void cleanup().finally(() => process.exit(0));
});
