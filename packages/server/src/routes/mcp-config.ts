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
 *
 * One server at a time (for the web app's MCP page; not in DeerFlow, whose page sends the whole unmasked
 * list back): `PUT /mcp/config/servers/{name}` adds or replaces one entry of the file, `PATCH` with
 * `{enabled}` switches one on or off, `DELETE` removes one. The same gates apply. A value the list
 * masked and the client sent back unchanged (`***` for an env or header value, the masked arguments or
 * URL) keeps what the file holds, so editing a server never overwrites its secrets with stars. Servers
 * declared in config.yaml are listed with `editable: false`: only the operator edits that file.
 */
import {
  type AppConfig,
  checkStdioAllowed,
  findExtensionsFile,
  maskStdioArgs,
  McpServerInput,
  type McpServerSpec,
  McpSpecError,
  readExtensionsFile,
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

type Entry = Record<string, unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The file's `mcpServers` entries as written (unmasked), and where the file is. */
function fileEntries(context: ServerContext): { file: string; entries: Record<string, Entry> } {
  const file = findExtensionsFile({ env: context.harness.setup.env }).path;
  let raw: unknown;
  try {
    raw = readExtensionsFile(file).mcpServers;
  } catch (error) {
    throw new HttpError(409, (error as Error).message);
  }
  const entries: Record<string, Entry> = {};
  if (isRecord(raw)) for (const [name, entry] of Object.entries(raw)) if (isRecord(entry)) entries[name] = entry;
  return { file, entries };
}

/** A disabled entry of the file, masked the same way, so the page can show and edit it. */
function describeInput(entry: Entry): Record<string, unknown> {
  const parsed = McpServerInput.safeParse(entry);
  if (!parsed.success) return {};
  const input = parsed.data;
  return {
    type: input.type ?? input.transport ?? (input.command ? "stdio" : "http"),
    command: input.command ?? null,
    args: maskStdioArgs(input.command, input.args, MASK),
    env: maskValues(input.env),
    url: maskUrl(input.url),
    headers: maskValues(input.headers),
    description: input.description ?? "",
  };
}

function listServers(context: ServerContext): Record<string, Record<string, unknown>> {
  const { servers, skipped } = resolveMcpServers(context.config, {
    env: context.harness.setup.env,
    onWarning: () => {},
  });
  const yaml = yamlServers(context.config);
  let entries: Record<string, Entry> = {};
  try {
    entries = fileEntries(context).entries;
  } catch {
    // A broken file: resolveMcpServers already skipped its servers; list what it found.
  }
  const out: Record<string, Record<string, unknown>> = {};
  for (const spec of servers) out[spec.name] = describe(spec);
  for (const entry of skipped) {
    const stored = yaml.has(entry.name) ? undefined : entries[entry.name];
    out[entry.name] ??= {
      ...(stored ? describeInput(stored) : {}),
      enabled: false,
      reason: entry.reason === "disabled" ? null : entry.reason,
    };
  }
  for (const [name, server] of Object.entries(out)) {
    server.source = yaml.has(name) ? "config.yaml" : "extensions_config.json";
    server.editable = !yaml.has(name);
  }
  return out;
}

const yamlServers = (config: AppConfig) => new Set(Object.keys(config.mcp_servers));

/**
 * The entry to save when `sent` replaces `stored`: values the list masked and the client sent back
 * unchanged keep the stored ones (an env or header value of `***`, the masked arguments, the masked URL).
 */
function keepMasked(sent: Entry, stored: Entry | undefined): Entry {
  if (!stored) return sent;
  const out = { ...sent };
  for (const key of ["env", "headers"] as const) {
    const now = sent[key];
    const before = stored[key];
    if (isRecord(now) && isRecord(before))
      out[key] = Object.fromEntries(
        Object.entries(now).map(([name, value]) => [
          name,
          value === MASK && typeof before[name] === "string" ? before[name] : value,
        ]),
      );
  }
  const storedArgs = Array.isArray(stored.args)
    ? stored.args.filter((arg): arg is string => typeof arg === "string")
    : [];
  const command = typeof stored.command === "string" ? stored.command : undefined;
  if (
    Array.isArray(sent.args) &&
    JSON.stringify(sent.args) === JSON.stringify(maskStdioArgs(command, storedArgs, MASK)) &&
    sent.command === stored.command
  )
    out.args = stored.args;
  if (typeof sent.url === "string" && typeof stored.url === "string" && sent.url === maskUrl(stored.url))
    out.url = stored.url;
  return out;
}

/** Registers the MCP config routes. */
export const registerMcpConfigRoutes: RegisterRoutes = (api, context) => {
  const writable = context.config.server.mcp_config_writes;
  const allow = context.config.server.mcp_stdio_allow;

  /** Refuses a write while writes are off or the caller is not an admin. */
  const mayWrite = (c: Parameters<typeof callerOf>[0]) => {
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
  };
  const save = (file: string, entries: Record<string, unknown>) => {
    try {
      updateExtensionsFile(file, (data) => ({ ...data, mcpServers: entries }));
    } catch (error) {
      throw new HttpError(409, `The MCP config could not be saved: ${(error as Error).message.split("\n")[0]}`);
    }
  };
  const answer = () => ({ mcp_servers: listServers(context), writable, restart_required: true });
  /** The name from the path, refused when it is not a file entry one may change. */
  const editableName = (name: string) => {
    if (!/^[A-Za-z0-9_-]+$/.test(name))
      throw new HttpError(
        422,
        `MCP server name "${name.slice(0, 100)}": use letters, digits, "_" and "-" (names prefix tool names).`,
      );
    if (yamlServers(context.config).has(name))
      throw new HttpError(
        409,
        `MCP server "${name}" is declared in config.yaml, which only the operator edits; change it there and restart.`,
      );
    return name;
  };
  const notFound = (name: string) =>
    new HttpError(404, `There is no MCP server "${name}" in extensions_config.json. GET /api/mcp/config lists them.`);

  api.get("/mcp/config", (c) => c.json({ mcp_servers: listServers(context), writable }));

  api.put("/mcp/config", async (c) => {
    mayWrite(c);
    const body = await parseBody(c, WriteSchema);
    const entries = checkEntries((body.mcpServers ?? body.mcp_servers)!, allow);
    save(findExtensionsFile({ env: context.harness.setup.env }).path, entries);
    return c.json(answer());
  });

  api.put("/mcp/config/servers/:name", async (c) => {
    mayWrite(c);
    const name = editableName(c.req.param("name"));
    const sent = await parseBody(c, z.record(z.string(), z.unknown()));
    const { file, entries } = fileEntries(context);
    const entry = keepMasked(sent, entries[name]);
    checkEntries({ [name]: entry }, allow);
    save(file, { ...entries, [name]: entry });
    return c.json(answer());
  });

  api.patch("/mcp/config/servers/:name", async (c) => {
    mayWrite(c);
    const name = editableName(c.req.param("name"));
    const { enabled } = await parseBody(c, z.strictObject({ enabled: z.boolean() }));
    const { file, entries } = fileEntries(context);
    const stored = entries[name];
    if (!stored) throw notFound(name);
    const entry = { ...stored, enabled };
    if (enabled) checkEntries({ [name]: entry }, allow);
    save(file, { ...entries, [name]: entry });
    return c.json(answer());
  });

  api.delete("/mcp/config/servers/:name", (c) => {
    mayWrite(c);
    const name = editableName(c.req.param("name"));
    const { file, entries } = fileEntries(context);
    if (!entries[name]) throw notFound(name);
    const { [name]: _removed, ...rest } = entries;
    save(file, rest);
    return c.json(answer());
  });
};
