/**
 * Names MCP tools so that no two tools the model sees share a name.
 *
 * A server's tools keep their own names when those are unique, because that is what the server's docs
 * and the model's habits use. A name taken by a built-in tool or by another server's tool is prefixed
 * with the server's name (`filesystem_read_file` next to the built-in `read_file`); so is every tool of
 * a server configured with `tool_name_prefix: true`. Names are kept to what model APIs accept
 * (letters, digits, `_`, `-`, at most 64 characters).
 */

/** One MCP tool to name: its server, its server-side name, and whether its server always prefixes. */
export interface ToolToName {
  server: string;
  tool: string;
  alwaysPrefix: boolean;
}

const MAX_NAME = 64;

/** Makes `name` acceptable to model APIs (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`). */
export function sanitizeToolName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_NAME);
  return cleaned || "tool";
}

/**
 * The name each tool gets, in input order. `reserved` are names already used by non-MCP tools.
 * A tool whose prefixed name still collides gets a numeric suffix, so every name is unique.
 */
export function assignToolNames(tools: readonly ToolToName[], reserved: Iterable<string>): string[] {
  const taken = new Set(reserved);
  const counts = new Map<string, number>();
  for (const entry of tools) {
    const plain = sanitizeToolName(entry.tool);
    counts.set(plain, (counts.get(plain) ?? 0) + 1);
  }
  return tools.map((entry) => {
    const plain = sanitizeToolName(entry.tool);
    const collides = taken.has(plain) || (counts.get(plain) ?? 0) > 1;
    let name = entry.alwaysPrefix || collides ? sanitizeToolName(`${entry.server}_${entry.tool}`) : plain;
    for (let n = 2; taken.has(name); n++) name = sanitizeToolName(`${name.slice(0, MAX_NAME - 4)}_${n}`);
    taken.add(name);
    return name;
  });
}
