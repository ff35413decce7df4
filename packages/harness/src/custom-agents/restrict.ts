/**
 * What a custom agent's settings take away from the lead agent: tools outside its `tool_groups`, MCP
 * tools of servers outside its `mcp_servers`, skills outside its `skills`. As in DeerFlow, only grouped
 * tools are filtered by group: the harness's own tools (present_files, ask_clarification, task, ...)
 * stay, since an agent without them could not deliver files, ask, or delegate.
 */
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { AgentSettings } from "./agent-definition.js";

/** The group of each built-in tool that has one (DeerFlow's config.yaml groups). */
export const BUILTIN_TOOL_GROUPS: Readonly<Record<string, string>> = {
  ls: "file:read",
  read_file: "file:read",
  glob: "file:read",
  grep: "file:read",
  view_image: "file:read",
  write_file: "file:write",
  str_replace: "file:write",
  bash: "bash",
  web_search: "web",
  web_fetch: "web",
  image_search: "web",
};

/**
 * Keeps the tools an agent may use: grouped tools (built-in or `tools:` entries with a `group`) only
 * when their group is listed, MCP tools only of listed servers; `null` settings keep everything.
 *
 * @example
 * restrictTools(tools, { tool_groups: ["web"] }, new Map()); // web tools and the ungrouped built-ins
 */
export function restrictTools<T extends StructuredToolInterface>(
  tools: readonly T[],
  settings: Pick<AgentSettings, "tool_groups" | "mcp_servers">,
  configGroups: ReadonlyMap<string, string>,
): T[] {
  const groups = settings.tool_groups ? new Set(settings.tool_groups) : null;
  const servers = settings.mcp_servers ? new Set(settings.mcp_servers) : null;
  return tools.filter((tool) => {
    const server = (tool as { metadata?: { mcp_server?: unknown } }).metadata?.mcp_server;
    if (typeof server === "string") return !servers || servers.has(server);
    const group = configGroups.get(tool.name) ?? BUILTIN_TOOL_GROUPS[tool.name];
    return !groups || group === undefined || groups.has(group);
  });
}

/** The skills an agent may discover and activate: all when `names` is null, else those listed. */
export function restrictSkills<T extends { name: string }>(
  skills: readonly T[],
  names: readonly string[] | null | undefined,
): T[] {
  if (!names) return [...skills];
  const allowed = new Set(names);
  return skills.filter((skill) => allowed.has(skill.name));
}
