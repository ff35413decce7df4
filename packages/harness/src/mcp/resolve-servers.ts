/**
 * Decides which MCP servers this process connects to: config.yaml's `mcp_servers` and the extensions
 * file's `mcpServers`, merged, disabled ones dropped, each validated on its own.
 *
 * A broken entry is reported and skipped rather than failing the agent, so one typo in one server does
 * not take away the others (the same rule as a server that fails to start).
 *
 * With `server.mcp_config_writes` on, the extensions file is writable over HTTP, so its stdio servers
 * are held to `server.mcp_stdio_allow` here too: an entry written before the allow-list checked whole
 * command lines (or put there by anything else that can write the file) does not start. config.yaml's
 * own servers are not: only the operator writes config.yaml.
 */
import type { AppConfig } from "../config/schema.js";
import { findExtensionsFile } from "../config/extensions-file.js";
import { readExtensionsMcpServers } from "./extensions-config.js";
import { McpServerInput, type McpServerSpec, McpSpecError, toServerSpec } from "./server-spec.js";
import { checkStdioAllowed, STDIO_ALLOW_HINT } from "./stdio-allow.js";

/** Where to find the extensions file and what to substitute `$VAR` from. */
export interface ResolveServersOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  onWarning?: (message: string) => void;
}

/** The servers to connect, plus the file they came from (for `deerflow mcp list`). */
export interface ResolvedServers {
  servers: McpServerSpec[];
  /** Servers declared but not used, with the reason (disabled, invalid). */
  skipped: { name: string; reason: string }[];
  extensionsFile: string | null;
}

/**
 * Collects the servers of config.yaml and `extensions_config.json`. When both declare the same name,
 * config.yaml wins and a warning says so.
 *
 * @example
 * const { servers } = resolveMcpServers(config, { onWarning: console.warn });
 * const mcp = createMcpService(servers);
 */
export function resolveMcpServers(
  config: Pick<AppConfig, "mcp_servers" | "source"> & {
    server?: Pick<AppConfig["server"], "mcp_config_writes" | "mcp_stdio_allow">;
  },
  options: ResolveServersOptions = {},
): ResolvedServers {
  const env = options.env ?? process.env;
  const onWarning = options.onWarning ?? ((message: string) => console.warn(message));
  const extensions = findExtensionsFile({ env, cwd: options.cwd ?? process.cwd() });
  const extensionsFile = extensions.exists ? extensions.path : null;
  const declared = new Map<string, { raw: unknown; source: string }>();
  if (extensions.exists) {
    try {
      for (const [name, raw] of Object.entries(readExtensionsMcpServers(extensions.path)))
        declared.set(name, { raw, source: extensions.path });
    } catch (error) {
      // Like a server that fails to start: say so, and go on with the servers of config.yaml.
      onWarning(`${(error as Error).message} Its MCP servers are skipped until then.`);
    }
  }
  const yamlSource = config.source ?? "config.yaml";
  for (const [name, raw] of Object.entries(config.mcp_servers)) {
    if (declared.has(name))
      onWarning(
        `MCP server "${name}" is declared in both ${extensionsFile} and ${yamlSource}; using the one in ${yamlSource}.`,
      );
    declared.set(name, { raw, source: yamlSource });
  }

  const servers: McpServerSpec[] = [];
  const skipped: ResolvedServers["skipped"] = [];
  for (const [name, { raw, source }] of declared) {
    const parsed = McpServerInput.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const reason = `MCP server "${name}" (${source}) is not valid: ${issue.path.join(".") || "(entry)"}: ${issue.message}. It is skipped; fix the entry to use it.`;
      skipped.push({ name, reason });
      onWarning(reason);
      continue;
    }
    if (!parsed.data.enabled) {
      skipped.push({ name, reason: "disabled" });
      continue;
    }
    if (!/^[A-Za-z0-9_-]+$/.test(name)) {
      const reason = `MCP server "${name}" (${source}): use letters, digits, "_" and "-" in server names (they prefix tool names). It is skipped.`;
      skipped.push({ name, reason });
      onWarning(reason);
      continue;
    }
    try {
      const spec = toServerSpec(name, parsed.data, { env, source });
      const refused =
        config.server?.mcp_config_writes && source !== yamlSource && spec.transport === "stdio"
          ? checkStdioAllowed(spec.command!, spec.args, spec.env, config.server.mcp_stdio_allow)
          : null;
      if (refused) {
        const reason = `MCP server "${name}" (${source}) is skipped: ${refused} The file is writable over HTTP (server.mcp_config_writes), so its stdio servers must be allowed. ${STDIO_ALLOW_HINT}`;
        skipped.push({ name, reason });
        onWarning(reason);
        continue;
      }
      servers.push(spec);
    } catch (error) {
      if (!(error instanceof McpSpecError)) throw error;
      skipped.push({ name, reason: error.message });
      onWarning(`${error.message} The server is skipped.`);
    }
  }
  return { servers, skipped, extensionsFile };
}
