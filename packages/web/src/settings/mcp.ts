/**
 * The MCP page's data: the servers as `GET /api/mcp/config` lists them (secrets masked), the form's
 * fields and the entry it sends to `PUT /api/mcp/config/servers/{name}` (DeerFlow's
 * `extensions_config.json` entry shape), checked here first so a typo says what is wrong before the
 * server is asked. The server checks again (and the stdio allow-list); its refusal is shown as it says it.
 */
import { t } from "../i18n";

/** One server as the list describes it. */
export interface McpServer {
  enabled: boolean;
  type?: string;
  command?: string | null;
  args?: string[];
  env?: Record<string, string>;
  url?: string | null;
  headers?: Record<string, string>;
  description?: string;
  /** Why the server is not used (an invalid entry, a refused command); null when it is just disabled. */
  reason?: string | null;
  /** False for servers of config.yaml, which only the operator edits. */
  editable?: boolean;
}

/** What `GET /api/mcp/config` answers. */
export interface McpListing {
  mcp_servers: Record<string, McpServer>;
  writable: boolean;
  restart_required?: boolean;
}

/** The add/edit form: one text per field, `KEY=value` lines for env and headers, one argument per line. */
export interface McpForm {
  name: string;
  type: "http" | "sse" | "stdio";
  url: string;
  command: string;
  args: string;
  env: string;
  headers: string;
  description: string;
}

/** An empty form for a new server. */
export const EMPTY_FORM: McpForm = {
  name: "",
  type: "http",
  url: "",
  command: "",
  args: "",
  env: "",
  headers: "",
  description: "",
};

const lines = (record: Record<string, string> | undefined) =>
  Object.entries(record ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join("\n");

/** The form for editing `server` (masked values stay `***`: sent back unchanged, the server keeps them). */
export function formOf(name: string, server: McpServer): McpForm {
  const type = server.type === "stdio" || server.type === "sse" ? server.type : "http";
  return {
    name,
    type,
    url: server.url ?? "",
    command: server.command ?? "",
    args: (server.args ?? []).join("\n"),
    env: lines(server.env),
    headers: lines(server.headers),
    description: server.description ?? "",
  };
}

function pairs(text: string, field: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const line of text.split("\n").map((one) => one.trim())) {
    if (!line) continue;
    const at = line.indexOf("=");
    if (at <= 0) return t("mcp.badPair", { field, line });
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

/**
 * The entry to send for a filled form, or what is wrong with it.
 *
 * @example
 * entryOf({ ...EMPTY_FORM, name: "search", url: "https://example.com/mcp" })
 * // { name: "search", entry: { type: "http", url: "https://example.com/mcp", headers: {}, enabled: true } }
 */
export function entryOf(
  form: McpForm,
  enabled = true,
): { name: string; entry: Record<string, unknown> } | { error: string } {
  const name = form.name.trim();
  if (!name) return { error: t("mcp.nameRequired") };
  if (!/^[A-Za-z0-9_-]+$/.test(name)) return { error: t("mcp.badName", { name }) };
  const description = form.description.trim() ? { description: form.description.trim() } : {};
  if (form.type === "stdio") {
    const command = form.command.trim();
    if (!command) return { error: t("mcp.commandRequired") };
    const env = pairs(form.env, t("mcp.env"));
    if (typeof env === "string") return { error: env };
    const args = form.args
      .split("\n")
      .map((arg) => arg.trim())
      .filter(Boolean);
    return { name, entry: { type: "stdio", command, args, env, enabled, ...description } };
  }
  const url = form.url.trim();
  if (!url) return { error: t("mcp.urlRequired") };
  if (!/^https?:\/\//i.test(url)) return { error: t("mcp.badUrl", { url }) };
  const headers = pairs(form.headers, t("mcp.headers"));
  if (typeof headers === "string") return { error: headers };
  return { name, entry: { type: form.type, url, headers, enabled, ...description } };
}
