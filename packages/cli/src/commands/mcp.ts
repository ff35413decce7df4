/**
 * `deerflow mcp list`: which MCP servers are configured, whether each one starts, and the tools it
 * offers, so a user can check an `extensions_config.json` or `mcp_servers:` entry without running the
 * agent. Every server is started (in parallel, each within its startup deadline) and stopped again.
 */
import { createMcpService, loadConfig, type McpServerStatus, resolveMcpServers } from "@deerflow/harness";
import { UsageError } from "../usage-error.js";
import { parseCommandArgs } from "../command-args.js";

/** Entry point of `deerflow mcp`. */
export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs("mcp", {
    args: argv,
    options: { config: { type: "string" }, json: { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  const [action = "list"] = parsed.positionals;
  if (action !== "list") throw new UsageError(`Unknown mcp action "${action}". Use: deerflow mcp list.`);
  const config = loadConfig({ path: parsed.values.config });
  const onWarning = (message: string) => process.stderr.write(`warning: ${message}\n`);
  const { servers, skipped, extensionsFile } = resolveMcpServers(config, { onWarning });
  if (servers.length === 0 && skipped.length === 0) {
    process.stdout.write(
      'No MCP servers configured. Add them under mcp_servers: in config.yaml or "mcpServers" in extensions_config.json.\n',
    );
    return 0;
  }
  const mcp = createMcpService(servers, { onWarning });
  let status: McpServerStatus[];
  try {
    await mcp.connect();
    status = mcp.status();
  } finally {
    await mcp.close();
  }
  if (parsed.values.json) {
    process.stdout.write(`${JSON.stringify({ extensions_file: extensionsFile, servers: status, skipped }, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(formatStatus(status, skipped));
  return 0;
}

function formatStatus(status: McpServerStatus[], skipped: { name: string; reason: string }[]): string {
  const lines: string[] = [];
  for (const server of status) {
    lines.push(`${server.name}  ${server.state}  ${server.transport}  ${server.target}  (${server.source})`);
    if (server.error) lines.push(`  error: ${server.error}`);
    for (const tool of server.tools)
      lines.push(`  - ${tool.name}: ${tool.description.trim().split("\n")[0]!.slice(0, 100)}`);
  }
  for (const entry of skipped) lines.push(`${entry.name}  skipped  ${entry.reason}`);
  lines.push("", "Tools whose name clashes with a built-in or another server's tool are offered as <server>_<tool>.");
  return `${lines.join("\n")}\n`;
}
