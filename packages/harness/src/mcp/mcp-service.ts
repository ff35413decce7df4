/**
 * The MCP service: one long-lived set of server connections per process, shared by every run.
 *
 * Starting an MCP server costs a process spawn or an HTTP handshake, and stdio servers keep state, so
 * connections are opened once (all servers in parallel, each bounded by its startup deadline) and
 * closed at shutdown, not per run. A server that fails to start is a warning; the others still serve
 * their tools. A server that dies later is started again by the next call to one of its tools.
 */
import type { StructuredToolInterface } from "@langchain/core/tools";
import { createMcpTool } from "./mcp-tool.js";
import { McpServerConnection, type McpServerState } from "./server-connection.js";
import type { McpServerSpec, McpTransport } from "./server-spec.js";
import { assignToolNames } from "./tool-names.js";

/** Options of {@link createMcpService}. */
export interface McpServiceOptions {
  /** The environment stdio servers take PATH and HOME from (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Receives one line per server that failed to start. Defaults to `console.warn`. */
  onWarning?: (message: string) => void;
}

/** One server as `deerflow mcp list` and a status route show it. */
export interface McpServerStatus {
  name: string;
  transport: McpTransport;
  /** The program (stdio) or URL (http/sse). */
  target: string;
  state: McpServerState;
  error?: string;
  /** Server-side tool names (the names the agent sees may carry a prefix). */
  tools: { name: string; description: string }[];
  source: string;
}

/** Long-lived MCP connections: `tools()` for each agent built, `status()` for reports, `close()` at shutdown. */
export interface McpService {
  /** Starts every server (once; later calls wait for the same start). */
  connect(): Promise<void>;
  /**
   * The agent-facing tools of every connected server, named so none collides with `reservedNames`
   * (the other tools of the agent) or with each other. Connects first if needed.
   */
  tools(options?: { reservedNames?: Iterable<string> }): Promise<StructuredToolInterface[]>;
  status(): McpServerStatus[];
  /** Stops every server. The service cannot be used afterwards. */
  close(): Promise<void>;
}

/**
 * Creates the service for `servers` (see `resolveMcpServers`). Nothing starts until `connect()` or
 * `tools()`.
 *
 * @example
 * const { servers } = resolveMcpServers(config);
 * const mcp = createMcpService(servers, { onWarning: console.warn });
 * const agent = await createLeadAgent(config, { mcp });
 * // ... runs ...
 * await agent.close();
 * await mcp.close();
 */
export function createMcpService(servers: readonly McpServerSpec[], options: McpServiceOptions = {}): McpService {
  const onWarning = options.onWarning ?? ((message: string) => console.warn(message));
  const connections = servers.map((spec) => new McpServerConnection(spec, options.env ?? process.env));
  // Agent-facing tools are reused across calls while their name stays the same, so every agent in the
  // process holds the same tool objects.
  const cache = new Map<string, StructuredToolInterface>();
  let started: Promise<void> | undefined;
  let closed = false;

  const connect = () => {
    if (closed) return Promise.resolve();
    started ??= Promise.all(
      connections.map(async (connection) => {
        await connection.connect();
        if (connection.state === "failed") {
          onWarning(
            `MCP server "${connection.spec.name}" (${connection.spec.source}) did not start: ${connection.error}. Its tools are not available; the other servers still work.`,
          );
        }
      }),
    ).then(() => undefined);
    return started;
  };

  return {
    connect,
    async tools({ reservedNames = [] } = {}) {
      await connect();
      const entries = connections.flatMap((connection) =>
        connection.tools.map((info) => ({
          connection,
          info,
          server: connection.spec.name,
          tool: info.name,
          alwaysPrefix: connection.spec.toolNamePrefix,
        })),
      );
      const names = assignToolNames(entries, reservedNames);
      return entries.map((entry, index) => {
        const name = names[index]!;
        const key = `${entry.server}\u0000${entry.tool}\u0000${name}`;
        let made = cache.get(key);
        if (!made) {
          made = createMcpTool(entry.connection, entry.info, name);
          cache.set(key, made);
        }
        return made;
      });
    },
    status() {
      return connections.map((connection) => {
        const { spec } = connection;
        return {
          name: spec.name,
          transport: spec.transport,
          target: spec.transport === "stdio" ? [spec.command, ...spec.args].join(" ") : spec.url!,
          state: connection.state,
          ...(connection.error ? { error: connection.error } : {}),
          tools: connection.tools.map(({ name, description }) => ({ name, description })),
          source: spec.source,
        };
      });
    },
    async close() {
      closed = true;
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}
