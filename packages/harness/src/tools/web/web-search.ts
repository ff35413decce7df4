/**
 * `web_search`: a query in, a compact numbered list of results out (title, date when known, URL,
 * snippet), from the provider chosen in `web.search`. The list is short on purpose: the model picks
 * what to read and calls `web_fetch` on it. A missing or rejected key, a rate limit or a slow provider
 * is one line in the result, so the run continues without search instead of failing.
 */
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import type { AllowList } from "./address-policy.js";
import type { Resolver } from "./safe-fetch.js";
import { type ProviderContext, ProviderError, type SearchHit, type SearchProvider } from "./search-provider.js";
import { markUntrusted, UNTRUSTED_NOTE } from "./untrusted.js";

/** How `web_search` (and `image_search`) reach their provider. */
export interface WebSearchOptions {
  provider: SearchProvider;
  /** The key from config or the environment; null when neither has one. */
  apiKey: string | null;
  baseUrl: string;
  /** The default and the cap of results per search. */
  maxResults: number;
  timeoutSeconds: number;
  allowList: AllowList;
  resolve?: Resolver;
}

const SNIPPET_CHARS = 300;

/**
 * Renders hits as the numbered list the model reads.
 *
 * @example
 * formatSearchResults("q", "Tavily", [{ title: "T", url: "https://t.example/", snippet: "S", date: "2026-01-02" }]);
 * // 'Search results for "q" (Tavily, 1 result):\n1. T (2026-01-02)\n   https://t.example/\n   S'
 */
export function formatSearchResults(query: string, label: string, hits: readonly SearchHit[]): string {
  if (hits.length === 0) return `No results for "${query}" (${label}). Try other words or a broader query.`;
  const lines = hits.map((hit, index) => {
    const snippet = hit.snippet.replace(/\s+/g, " ").trim();
    const clipped = snippet.length > SNIPPET_CHARS ? `${snippet.slice(0, SNIPPET_CHARS)}…` : snippet;
    const head = `${index + 1}. ${hit.title.trim() || "(untitled)"}${hit.date ? ` (${hit.date})` : ""}\n   ${hit.url}`;
    return clipped ? `${head}\n   ${clipped}` : head;
  });
  return `Search results for "${query}" (${label}, ${hits.length} result${hits.length === 1 ? "" : "s"}):\n${lines.join("\n")}`;
}

/** The one line returned when the provider needs a key and none is configured; undefined when fine. */
export function missingKeyLine(tool: string, options: WebSearchOptions): string | undefined {
  if (!options.provider.keyEnv || options.apiKey) return undefined;
  return `Error: ${tool} uses ${options.provider.label}, which needs an API key, and none is set. Set web.search.api_key in config.yaml (or ${options.provider.keyEnv}); continue without web search for now.`;
}

/** The context a provider call gets. */
export function providerContext(options: WebSearchOptions, signal?: AbortSignal): ProviderContext {
  return {
    apiKey: options.apiKey,
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutSeconds * 1000,
    allowList: options.allowList,
    resolve: options.resolve,
    signal,
  };
}

/** Arguments of `web_search`. */
export const WebSearchArgs = z.object({
  query: z.string().min(1).describe("What to search for, as you would type it into a search engine."),
  max_results: z.number().int().positive().optional().describe("How many results to return (capped by configuration)."),
});

/** Runs one search and renders the result text `web_search` returns. */
export async function runWebSearch(
  query: string,
  maxResults: number | undefined,
  options: WebSearchOptions,
  signal?: AbortSignal,
): Promise<string> {
  const missing = missingKeyLine("web_search", options);
  if (missing) return missing;
  const count = Math.min(maxResults ?? options.maxResults, options.maxResults);
  try {
    const hits = (await options.provider.search(query, count, providerContext(options, signal)))
      .filter((hit) => hit.url !== "")
      .slice(0, count);
    if (hits.length === 0) return formatSearchResults(query, options.provider.label, hits);
    return `${UNTRUSTED_NOTE}\n${markUntrusted(`${options.provider.label} search`, formatSearchResults(query, options.provider.label, hits))}`;
  } catch (error) {
    if (error instanceof ProviderError) return `Error: ${error.message}`;
    throw error;
  }
}

/**
 * Builds the `web_search` tool.
 *
 * @example
 * const webSearch = createWebSearchTool({ provider: tavilyProvider, apiKey: "tvly-…", baseUrl: "https://api.tavily.com", maxResults: 5, timeoutSeconds: 15, allowList: parseAllowList([]) });
 */
export function createWebSearchTool(options: WebSearchOptions) {
  return tool(async ({ query, max_results }, config) => runWebSearch(query, max_results, options, config?.signal), {
    name: "web_search",
    description: `Search the web (${options.provider.label}). Returns a numbered list of results: title, date when known, URL and a snippet. Read promising results with web_fetch before relying on them, and cite their URLs.`,
    schema: WebSearchArgs,
  });
}
