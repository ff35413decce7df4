/**
 * `tool_search`: how the model loads a deferred tool's schema when there are too many MCP tools to send
 * every schema on every call.
 *
 * The model sees the catalogue (names and one-line descriptions); it searches it, gets the matching
 * tools' full schemas back, and those tools are promoted into the thread (`promoted_tools`), so every
 * later model call can call them. Query forms, as in DeerFlow: `select:a,b` (exact names),
 * `+word rest` (names containing `word`, ranked by the rest), else keywords or a regex over names and
 * descriptions (a name match counts double). At most five results, except for `select:`.
 */
import { ToolMessage } from "@langchain/core/messages";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { Command } from "@langchain/langgraph";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { z } from "zod";

/** Name of the tool, and of the state field it fills. */
export const TOOL_SEARCH_TOOL_NAME = "tool_search";
export const PROMOTED_TOOLS_FIELD = "promoted_tools";
const MAX_RESULTS = 5;

/** What search looks at: a name and a description. */
export interface CatalogEntry {
  name: string;
  description: string;
}

/** The first line of a description, shortened, for the catalogue. */
export function oneLine(description: string, max = 120): string {
  const line = description.trim().split("\n")[0] ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The names in `catalog` that match `query`, best first. */
export function searchCatalog(catalog: readonly CatalogEntry[], query: string): string[] {
  const trimmed = query.trim();
  if (trimmed.toLowerCase().startsWith("select:")) {
    const wanted = trimmed
      .slice("select:".length)
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean);
    return wanted.filter((name) => catalog.some((entry) => entry.name === name));
  }
  let pool = catalog;
  let rest = trimmed;
  const required = /^\+(\S+)\s*(.*)$/.exec(trimmed);
  if (required) {
    const word = required[1]!.toLowerCase();
    pool = catalog.filter((entry) => entry.name.toLowerCase().includes(word));
    rest = required[2]!;
  }
  const terms = rest.toLowerCase().split(/\s+/).filter(Boolean);
  let pattern: RegExp | undefined;
  if (/[.*+?^${}()|[\]\\]/.test(rest)) {
    try {
      pattern = new RegExp(rest, "i");
    } catch {
      pattern = undefined; // Not a valid regex: the keywords alone decide.
    }
  }
  const scored = pool.map((entry, index) => {
    const name = entry.name.toLowerCase();
    const description = entry.description.toLowerCase();
    let score = required ? 1 : 0; // With +word, every tool whose name has the word is a result.
    for (const term of terms) score += (name.includes(term) ? 2 : 0) + (description.includes(term) ? 1 : 0);
    if (pattern && (pattern.test(entry.name) || pattern.test(entry.description))) score += 1;
    return { name: entry.name, score, index };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, MAX_RESULTS)
    .map((entry) => entry.name);
}

/** The schema a model would see for `target`, as returned to it by a search. */
function describeSchema(target: StructuredToolInterface): Record<string, unknown> {
  const parameters = (() => {
    try {
      return toJsonSchema(target.schema as Parameters<typeof toJsonSchema>[0]);
    } catch {
      return target.schema;
    }
  })();
  return { name: target.name, description: target.description, parameters };
}

/**
 * Creates `tool_search` over `deferred`. Its result lists the matching tools' schemas and its update
 * adds their names to `promoted_tools`.
 */
export function createToolSearchTool(deferred: readonly StructuredToolInterface[]) {
  const catalog = deferred.map((entry) => ({ name: entry.name, description: entry.description }));
  return tool(
    async ({ query }, config) => {
      const toolCallId = (config as { toolCall?: { id?: string } }).toolCall?.id ?? "";
      const names = searchCatalog(catalog, query);
      if (names.length === 0) {
        return new ToolMessage({
          name: TOOL_SEARCH_TOOL_NAME,
          tool_call_id: toolCallId,
          content: `No tools found matching: ${query}. Try other words, or select:name with a name from the catalogue.`,
        });
      }
      const schemas = names.map((name) => describeSchema(deferred.find((entry) => entry.name === name)!));
      const content = `Loaded ${names.length} tool(s); you can call them now:\n${JSON.stringify(schemas, null, 2)}`;
      return new Command({
        update: {
          [PROMOTED_TOOLS_FIELD]: names,
          messages: [new ToolMessage({ name: TOOL_SEARCH_TOOL_NAME, tool_call_id: toolCallId, content })],
        },
      });
    },
    {
      name: TOOL_SEARCH_TOOL_NAME,
      description:
        "Load tools from the deferred tool catalogue so you can call them. Query forms: 'select:name1,name2' loads exact names; " +
        "'+word more words' finds tools whose name contains word; otherwise keywords (or a regex) matched against names and descriptions. " +
        "Returns the tools' schemas (at most 5, except with select:).",
      schema: z.object({
        query: z.string().min(1).describe("What you need, e.g. 'select:read_text_file' or 'list files in a directory'"),
      }),
    },
  );
}
