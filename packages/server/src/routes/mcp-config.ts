/**
 * `GET /mcp/config` (contract §B.4 tier 1): the MCP servers the harness would connect, from config.yaml
 * and `extensions_config.json`, as DeerFlow's settings page lists them. Secrets are masked: every env
 * and header value, a URL's query string and credentials, and every argument but option names and the
 * package a runner starts (servers take tokens as arguments too: `--api-key sk-...`, a database URL).
 *
 * `PUT /mcp/config` replaces `mcpServers` in `extensions_config.json` (other keys kept, atomic write).
 * An open write of a stdio `command` is remote code execution (DeerFlow PR #1646), so it is off unless
 * `server.mcp_config_writes` is true, a stdio entry must be allowed by `server.mcp_stdio_allow` as a
 * whole command line (a listed package through a runner, without runner options; see the harness's
 * `checkStdioAllowed`), and with `server.admin_api_keys` set only those keys may write. The running
 * harness keeps its connections: the answer says `restart_required: true`.
 */
import {
  checkStdioAllowed,
  findExtensionsFile,
  maskStdioArgs,
  McpServerInput,
  type McpServerSpec,
  McpSpecError,
  resolveMcpServers,
  STDIO_ALLOW_HINT,
  toServerSpec,
  updateExtensionsFile,
} from "@deerflow/harness";
import { z } from "zod";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { HttpError } from "../http/errors.js";
import { callerOf } from "../auth/caller.js";
import { parseBody } from "../http/validate.js";

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

const maskValues = (record: Record<string, string>) =>
  Object.fromEntries(Object.keys(record).map((key) => [key, MASK]));

function describe(spec: McpServerSpec): Record<string, unknown> {
  return {
    enabled: true,
    type: spec.transport,
    command: spec.command ?? null,
    args: maskStdioArgs(spec.command, spec.args, MASK),
    env: maskValues(spec.env),
    url: maskUrl(spec.url),
    headers: maskValues(spec.headers),
    description: spec.description ?? "",
  };
}

/** DeerFlow's body: `{mcpServers: {...}}` (as in the file); `mcp_servers` is accepted too. */
const WriteSchema = z
  .strictObject({
    mcpServers: z.record(z.string(), z.unknown()).optional(),
    mcp_servers: z.record(z.string(), z.unknown()).optional(),
  })
  .refine(
    (body) => (body.mcpServers === undefined) !== (body.mcp_servers === undefined),
    'Send the servers as {"mcpServers": {...}}.',
  );

/** Env for structural checks only: `$VAR` is resolved when the harness connects, not here. */
const ANY_VAR = new Proxy({}, { get: () => "set" }) as Record<string, string>;

/** Checks each entry as the harness will read it, and the stdio allow-list; returns the entries to save. */
function checkEntries(entries: Record<string, unknown>, allow: readonly string[]): Record<string, unknown> {
  for (const [name, raw] of Object.entries(entries)) {
    if (!/^[A-Za-z0-9_-]+$/.test(name))
      throw new HttpError(
        422,
        `MCP server name "${name.slice(0, 100)}": use letters, digits, "_" and "-" (names prefix tool names).`,
      );
    const parsed = McpServerInput.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HttpError(
        422,
        `MCP server "${name}" is not valid: ${issue.path.join(".") || "(entry)"}: ${issue.message}.`,
      );
    }
    let spec: McpServerSpec;
    try {
      spec = toServerSpec(name, parsed.data, { env: ANY_VAR, source: "request" });
    } catch (error) {
      if (error instanceof McpSpecError) throw new HttpError(422, error.message);
      throw error;
    }
    const refused = spec.transport === "stdio" ? checkStdioAllowed(spec.command!, spec.args, spec.env, allow) : null;
    if (refused)
      throw new HttpError(422, `MCP server "${name}" is not allowed over HTTP: ${refused} ${STDIO_ALLOW_HINT}`);
  }
  return entries;
}

function listServers(context: ServerContext): Record<string, Record<string, unknown>> {
  const { servers, skipped } = resolveMcpServers(context.config, {
    env: context.harness.setup.env,
    onWarning: () => {},
  });
  const out: Record<string, Record<string, unknown>> = {};
  for (const spec of servers) out[spec.name] = describe(spec);
  for (const entry of skipped)
    out[entry.name] ??= { enabled: false, reason: entry.reason === "disabled" ? null : entry.reason };
  return out;
}

/** Registers the MCP config routes. */
export const registerMcpConfigRoutes: RegisterRoutes = (api, context) => {
  const writable = context.config.server.mcp_config_writes;

  api.get("/mcp/config", (c) => c.json({ mcp_servers: listServers(context), writable }));

  api.put("/mcp/config", async (c) => {
    if (!writable) {
      throw new HttpError(
        403,
        "Writing the MCP config over HTTP is off. Set server.mcp_config_writes: true in config.yaml (and list the allowed stdio packages in server.mcp_stdio_allow), then restart; or edit extensions_config.json directly.",
      );
    }
    if (!callerOf(c).admin) {
      throw new HttpError(
        403,
        "Only an admin may change the MCP config: a user with the admin role, or a key in server.admin_api_keys.",
      );
    }
    const body = await parseBody(c, WriteSchema);
    const entries = checkEntries((body.mcpServers ?? body.mcp_servers)!, context.config.server.mcp_stdio_allow);
    const file = findExtensionsFile({ env: context.harness.setup.env }).path;
    try {
      updateExtensionsFile(file, (data) => ({ ...data, mcpServers: entries }));
    } catch (error) {
      throw new HttpError(409, `The MCP config could not be saved: ${(error as Error).message.split("\n")[0]}`);
    }
    return c.json({ mcp_servers: listServers(context), writable, restart_required: true });
  });
};
