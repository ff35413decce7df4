/**
 * The one-call way from config to a running MCP service, for callers that own a single agent (the
 * CLI through `createLeadAgent`, `deerflow mcp list`). A harness or server that shares one service
 * across many agents calls the same function once and passes the result around.
 */
import { createMcpService, type McpService } from "./mcp-service.js";
import { resolveMcpServers } from "./resolve-servers.js";

/** Options of {@link openMcpService}. */
export interface OpenMcpServiceOptions {
  env?: Record<string, string | undefined>;
  /** Where `extensions_config.json` is looked for (default `process.cwd()`). */
  cwd?: string;
  onWarning?: (message: string) => void;
}

/**
 * Resolves the configured servers and creates the service, or returns undefined when no server is
 * configured (nothing to start). Throws `ConfigError` for an unreadable extensions file.
 */
export function openMcpService(
  config: Parameters<typeof resolveMcpServers>[0],
  options: OpenMcpServiceOptions = {},
): McpService | undefined {
  const { servers } = resolveMcpServers(config, options);
  return servers.length > 0 ? createMcpService(servers, { env: options.env, onWarning: options.onWarning }) : undefined;
}
