/**
 * The official MCP reference servers, run from node_modules as a user would run them (never
 * downloaded at test time): paths of their entry points, and the "everything" server started over
 * HTTP in its own process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
/** `@modelcontextprotocol/server-filesystem`'s entry point (args: the allowed directories). */
export const FILESYSTEM_SERVER = path.join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
/** `@modelcontextprotocol/server-everything`'s entry point (arg: stdio | sse | streamableHttp). */
export const EVERYTHING_SERVER = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
/** Our own failure fixtures (crash mid-call, garbage results). */
export const FIXTURES = path.join(root, "packages/harness/test/fixtures/mcp");

/** A reference server running over HTTP. */
export interface HttpServerProcess {
  /** The MCP endpoint (`/mcp` for streamable HTTP, `/sse` for SSE). */
  url: string;
  close(): Promise<void>;
}

/** A port the OS just handed out (the server reads its port from PORT, so it cannot take 0 itself). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function waitForListening(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on port|running on port/i.test(output)) resolve();
      if (/already in use|Error/.test(output)) reject(new Error(output));
    };
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

/** Starts `server-everything` in `mode` on a free port and waits until it listens. */
export async function startEverythingOverHttp(mode: "streamableHttp" | "sse"): Promise<HttpServerProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, [EVERYTHING_SERVER, mode], {
      env: { PATH: process.env.PATH, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      await waitForListening(child);
    } catch (error) {
      child.kill("SIGKILL");
      if (attempt < 3) continue;
      throw error;
    }
    return {
      url: `http://127.0.0.1:${port}/${mode === "sse" ? "sse" : "mcp"}`,
      close: () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    };
  }
}
