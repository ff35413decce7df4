/**
 * One MCP server, as the connection code needs it, whichever file declared it.
 *
 * Servers come from two places with two spellings: config.yaml `mcp_servers` (`transport:`) and
 * DeerFlow's `extensions_config.json` `mcpServers` (`type:`, plus keys we do not act on such as
 * `routing` or `oauth`). Both are turned into one `McpServerSpec` here, so the service never looks at
 * either file. `$VAR` and `${VAR}` in `env` and `headers` values are replaced from the environment at this
 * point; a variable that is not set makes that one server fail to start (a warning), not the whole run.
 */
import { z } from "zod";

/** How the harness talks to a server. */
export type McpTransport = "stdio" | "http" | "sse";

/** A server ready to connect: transport, program or URL, and the limits that bound it. */
export interface McpServerSpec {
  name: string;
  transport: McpTransport;
  /** stdio: the program and its arguments. */
  command?: string;
  args: string[];
  /** stdio: the only variables the program gets, besides a minimal PATH and HOME. */
  env: Record<string, string>;
  /** http/sse: the endpoint and the headers sent with every request. */
  url?: string;
  headers: Record<string, string>;
  description?: string;
  /** Always name tools `{server}_{tool}` (otherwise only when a name collides). */
  toolNamePrefix: boolean;
  /** Deadline for starting, the MCP handshake and listing tools. */
  startupTimeoutMs: number;
  /** Deadline of one tool call. */
  toolCallTimeoutMs: number;
  /** Where the server was declared, for messages. */
  source: string;
}

/** DeerFlow's `session_init_timeout` default, in seconds. */
export const DEFAULT_STARTUP_TIMEOUT_SECONDS = 60;
/** Tool call deadline when none is configured (the MCP SDK's own default), in seconds. */
export const DEFAULT_TOOL_CALL_TIMEOUT_SECONDS = 60;

/**
 * A server entry in either file. Unknown keys are ignored (DeerFlow's files carry `routing`, `tools`,
 * `task_toolsets`...), so a DeerFlow `extensions_config.json` loads as it is.
 */
export const McpServerInput = z.object({
  enabled: z.boolean().default(true),
  type: z.enum(["stdio", "http", "sse", "streamable_http", "streamable-http"]).optional(),
  transport: z.enum(["stdio", "http", "sse", "streamable_http", "streamable-http"]).optional(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).default({}),
  description: z.string().optional(),
  tool_name_prefix: z.boolean().optional(),
  session_init_timeout: z.number().positive().nullable().optional(),
  tool_call_timeout: z.number().positive().nullable().optional(),
});
export type McpServerInput = z.infer<typeof McpServerInput>;

/** Thrown by {@link toServerSpec} for an entry that cannot start; the message names the server. */
export class McpSpecError extends Error {}

const VAR = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/** Replaces `$VAR` / `${VAR}` inside `value`; throws naming the first variable that is not set. */
export function substituteVars(value: string, env: Record<string, string | undefined>, where: string): string {
  return value.replace(VAR, (_match, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    const found = env[name];
    if (found === undefined || found === "")
      throw new McpSpecError(
        `${where} uses $${name}, which is not set. Export ${name} or write the value in the file.`,
      );
    return found;
  });
}

/** Turns a validated entry into a spec, or throws {@link McpSpecError} saying what to fix. */
export function toServerSpec(
  name: string,
  input: McpServerInput,
  options: { env: Record<string, string | undefined>; source: string },
): McpServerSpec {
  const where = `MCP server "${name}" (${options.source})`;
  const declared = input.type ?? input.transport;
  const transport: McpTransport =
    declared === "streamable_http" || declared === "streamable-http"
      ? "http"
      : (declared ?? (input.command === undefined && input.url ? "http" : "stdio"));
  const substitute = (record: Record<string, string>, field: string) =>
    Object.fromEntries(
      Object.entries(record).map(([key, value]) => [
        key,
        substituteVars(value, options.env, `${where} ${field}.${key}`),
      ]),
    );
  const spec: McpServerSpec = {
    name,
    transport,
    command: input.command,
    args: input.args,
    env: substitute(input.env, "env"),
    url: input.url,
    headers: substitute(input.headers, "headers"),
    description: input.description,
    toolNamePrefix: input.tool_name_prefix ?? false,
    startupTimeoutMs: (input.session_init_timeout ?? DEFAULT_STARTUP_TIMEOUT_SECONDS) * 1000,
    toolCallTimeoutMs: (input.tool_call_timeout ?? DEFAULT_TOOL_CALL_TIMEOUT_SECONDS) * 1000,
    source: options.source,
  };
  if (transport === "stdio" && !spec.command)
    throw new McpSpecError(
      `${where} is a stdio server without a command. Add "command" (and "args"), or give "url" and type "http".`,
    );
  if (transport !== "stdio") {
    if (!spec.url)
      throw new McpSpecError(
        `${where} uses ${transport} but has no "url". Add the server's URL, e.g. http://127.0.0.1:8000/mcp.`,
      );
    let parsed: URL;
    try {
      parsed = new URL(spec.url);
    } catch {
      throw new McpSpecError(`${where}: url "${spec.url}" is not a valid URL.`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
      throw new McpSpecError(`${where}: url "${spec.url}" must start with http:// or https://.`);
  }
  return spec;
}
