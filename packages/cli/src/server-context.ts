/**
 * The server's context over the home's database for commands that manage what the server keeps
 * (`deerflow users`, `deerflow cron`): the same stores and rules as `deerflow serve`, without listening,
 * executing runs or firing crons. MCP servers are not started.
 */
import { createHarness, type Harness, loadConfig } from "@deerflow/harness";
import { createServer, type ServerContext } from "@deerflow/server";

/** An opened home: its harness, the server's context, and how to close both. */
export interface OpenedHome {
  harness: Harness;
  context: ServerContext;
  close(): Promise<void>;
}

/** Opens the home of `configPath` (or the usual config search); `say` receives warnings and log lines. */
export async function openServerContext(
  configPath: string | undefined,
  say: (line: string) => void,
): Promise<OpenedHome> {
  const config = loadConfig({ path: configPath });
  const harness = await createHarness(config, { mcp: false, onWarning: (message) => say(`warning: ${message}`) });
  try {
    const server = createServer(harness, { webDir: null, runWorker: false, log: say });
    return {
      harness,
      context: server.context,
      async close() {
        await server.stop();
        await harness.close();
      },
    };
  } catch (error) {
    await harness.close();
    throw error;
  }
}
