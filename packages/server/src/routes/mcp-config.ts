/**
 * `GET /mcp/config` (contract §B.4 tier 1), read-only: the MCP servers the harness would connect, from
 * config.yaml and `extensions_config.json`, as DeerFlow's settings page lists them. Secrets are masked
 * (every env value and header value, and a URL's query string and credentials).
 *
 * Writing the MCP config over HTTP is deliberately not offered: an unauthenticated `PUT` of a stdio
 * `command` was remote code execution in DeerFlow (PR #1646). Edit config.yaml or
 * `extensions_config.json` and restart instead.
 */
import { type McpServerSpec, resolveMcpServers } from "@deerflow/harness";
import type { RegisterRoutes } from "../context.js";

const MASK = "***";

function maskUrl(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      parsed.username = MASK;
      parsed.password = "";
    }
    if (parsed.search) parsed.search = `?${MASK}`;
    return parsed.toString();
  } catch {
    return MASK;
  }
}

const maskValues = (record: Record<string, string>) => Object.fromEntries(Object.keys(record).map((key) => [key, MASK]));

function describe(spec: McpServerSpec): Record<string, unknown> {
  return {
    enabled: true,
    type: spec.transport,
    command: spec.command ?? null,
    args: spec.args,
    env: maskValues(spec.env),
    url: maskUrl(spec.url),
    headers: maskValues(spec.headers),
    description: spec.description ?? "",
  };
}

/** Registers the read-only MCP config route. */
export const registerMcpConfigRoutes: RegisterRoutes = (api, context) => {
  api.get("/mcp/config", (c) => {
    const { servers, skipped } = resolveMcpServers(context.config, { env: context.harness.setup.env, onWarning: () => {} });
    const out: Record<string, Record<string, unknown>> = {};
    for (const spec of servers) out[spec.name] = describe(spec);
    for (const entry of skipped) out[entry.name] ??= { enabled: false, reason: entry.reason === "disabled" ? null : entry.reason };
    return c.json({ mcp_servers: out, writable: false });
  });
};
