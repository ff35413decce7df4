/**
 * Deferred tool loading: with many MCP tools, sending every schema on every model call costs tokens and
 * confuses models, so the deferred tools are withheld until the model asks for them.
 *
 * Each model call sees the catalogue (`<available-deferred-tools>`, one line per tool, appended to the
 * system prompt so the prompt prefix stays cacheable) and `tool_search`; the tools `tool_search`
 * promoted into the thread's `promoted_tools` are bound from then on. Every deferred tool stays
 * registered with the agent, so a promoted one runs like any other; one called before it was promoted
 * gets an error ToolMessage telling the model to load it first.
 *
 * Promotions belong to the catalogue they were made from. The thread records a hash of the catalogue
 * (`deferred_catalog_hash`: names, descriptions and schemas); when an MCP server is added, removed or
 * changes a tool, the next run finds another hash and starts with no promoted tools, so a name promoted
 * earlier cannot bind a tool that is no longer the one the model loaded. A thread without a recorded
 * hash (from before it was recorded) adopts the current one and keeps its promotions.
 */
import { createHash } from "node:crypto";
import { ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { Overwrite, ReducedValue, StateSchema } from "@langchain/langgraph";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { createToolSearchTool, oneLine, TOOL_SEARCH_TOOL_NAME } from "./tool-search.js";
import type { Logger } from "../logger.js";

/**
 * Reducer of `promoted_tools`: the union, in first-promotion order. Promoting a name twice changes
 * nothing (`merge(x, x) == x`); `undefined`/`null` add nothing. A merge never removes a name; the middleware clears the list (an `Overwrite`) when the catalogue changed.
 */
export function mergePromotedTools(
  current: readonly string[] | null | undefined,
  next: readonly string[] | null | undefined,
): string[] {
  const merged = [...(current ?? [])];
  for (const name of next ?? []) if (!merged.includes(name)) merged.push(name);
  return merged;
}

/**
 * A short hash of the catalogue: each tool's name, description and argument schema, in name order, so
 * the same tools give the same hash in every process and any change to one of them gives another.
 *
 * @example
 * catalogueHash([searchIssues]) === catalogueHash([searchIssues]); // true, in any process
 */
export function catalogueHash(deferred: readonly StructuredToolInterface[]): string {
  const canonical = [...deferred]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((entry) => [entry.name, entry.description, schemaOf(entry)]);
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex").slice(0, 16);
}

function schemaOf(entry: StructuredToolInterface): unknown {
  try {
    return toJsonSchema(entry.schema as Parameters<typeof toJsonSchema>[0]);
  } catch {
    return null;
  }
}

const promotedState = new StateSchema({
  /** Hash of the deferred catalogue the thread's promotions were made from (`catalogueHash`). */
  deferred_catalog_hash: z.string().optional(),
  promoted_tools: new ReducedValue(
    z.array(z.string()).default(() => []),
    {
      reducer: (current: string[], next: string[]) => mergePromotedTools(current, next),
    },
  ),
});

/** Options of {@link deferredToolsMiddleware}. */
export interface DeferredToolsOptions {
  /** The tools to withhold until promoted (they must also be among the agent's tools). */
  deferred: readonly StructuredToolInterface[];
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/** The catalogue block appended to the system prompt. */
export function renderCatalogue(deferred: readonly StructuredToolInterface[]): string {
  const lines = deferred.map((entry) => `- ${entry.name}: ${oneLine(entry.description)}`);
  return [
    "<available-deferred-tools>",
    `These tools exist but are not loaded yet. To use one, first call ${TOOL_SEARCH_TOOL_NAME} (e.g. "select:${deferred[0]?.name ?? "name"}" or a few keywords); the tools it returns can be called from then on.`,
    ...lines,
    "</available-deferred-tools>",
  ].join("\n");
}

/**
 * Withholds `deferred` from the model until `tool_search` promotes them. Provides `tool_search` itself.
 *
 * @example
 * const mcpTools = await mcp.tools();
 * createAgent({ model, tools: [...builtins, ...mcpTools], middleware: [deferredToolsMiddleware({ deferred: mcpTools })] });
 */
export function deferredToolsMiddleware(options: DeferredToolsOptions) {
  const deferredNames = new Set(options.deferred.map((entry) => entry.name));
  const catalogue = renderCatalogue(options.deferred);
  const hash = catalogueHash(options.deferred);
  return createMiddleware({
    name: "deferred-tools",
    stateSchema: promotedState,
    tools: [createToolSearchTool(options.deferred)],
    beforeAgent: (state) => {
      const recorded = state.deferred_catalog_hash;
      if (recorded === hash) return undefined;
      if (recorded === undefined || (state.promoted_tools ?? []).length === 0) return { deferred_catalog_hash: hash };
      options.logger?.info(
        `the deferred tool catalogue changed; cleared the promoted tools (${state.promoted_tools.join(", ")})`,
      );
      return { deferred_catalog_hash: hash, promoted_tools: new Overwrite([]) as unknown as string[] };
    },
    wrapModelCall: (request, handler) => {
      const promoted = new Set(request.state.promoted_tools ?? []);
      const tools = request.tools.filter((entry) => {
        const name = (entry as { name?: string }).name;
        return name === undefined || !deferredNames.has(name) || promoted.has(name);
      });
      const separator = request.systemMessage.text ? "\n\n" : "";
      return handler({ ...request, tools, systemMessage: request.systemMessage.concat(`${separator}${catalogue}`) });
    },
    wrapToolCall: async (request, handler) => {
      const name = request.toolCall.name;
      const promoted = (request.state as { promoted_tools?: string[] }).promoted_tools ?? [];
      if (name === TOOL_SEARCH_TOOL_NAME) {
        const result = await handler(request);
        const update = (result as { update?: { promoted_tools?: unknown } }).update;
        if (Array.isArray(update?.promoted_tools) && update.promoted_tools.length > 0)
          options.logger?.info(`promoted ${update.promoted_tools.join(", ")}`);
        return result;
      }
      if (!deferredNames.has(name) || promoted.includes(name)) return handler(request);
      options.logger?.info(`refused a call to "${name}" before tool_search promoted it`);
      return new ToolMessage({
        name,
        tool_call_id: request.toolCall.id ?? "",
        status: "error",
        content: `Error: ${name} is in the deferred tool catalogue and is not loaded yet. Call ${TOOL_SEARCH_TOOL_NAME} with "select:${name}" first, then call it with the schema it returns.`,
      });
    },
  });
}
