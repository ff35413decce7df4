/**
 * Maps the `web:` config section to the web tools a run gets: `web_fetch` unless turned off,
 * `web_search` (and `image_search` when asked for) only when a provider is configured, so a model is
 * never offered a search it cannot run. A bad `allow_hosts` entry fails here, before any model call.
 */
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { WebConfig } from "../../config/schema.js";
import { ConfigError } from "../../errors.js";
import { type AllowList, parseAllowList } from "./address-policy.js";
import { createImageSearchTool } from "./image-search.js";
import type { Resolver } from "./safe-fetch.js";
import { braveProvider } from "./search-brave.js";
import type { SearchProvider } from "./search-provider.js";
import { searxngProvider } from "./search-searxng.js";
import { tavilyProvider } from "./search-tavily.js";
import { createWebFetchTool } from "./web-fetch.js";
import { createWebSearchTool } from "./web-search.js";

/** The providers `web.search.provider` can name. */
export const SEARCH_PROVIDERS: Readonly<Record<NonNullable<WebConfig["search"]["provider"]>, SearchProvider>> = {
  tavily: tavilyProvider,
  brave: braveProvider,
  searxng: searxngProvider,
};

/** What only code can pass: the environment (for provider keys) and, in tests, a resolver. */
export interface WebToolsOptions {
  env?: Record<string, string | undefined>;
  resolve?: Resolver;
}

/**
 * Builds the web tools for `config.web`.
 *
 * @example
 * const tools = createWebTools(config.web, { env: process.env }); // [web_fetch] with the defaults
 */
export function createWebTools(web: WebConfig, options: WebToolsOptions = {}): StructuredToolInterface[] {
  let allowList: AllowList;
  try {
    allowList = parseAllowList(web.allow_hosts);
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}`);
  }
  const tools: StructuredToolInterface[] = [];
  if (web.search.provider) {
    const provider = SEARCH_PROVIDERS[web.search.provider];
    const env = options.env ?? process.env;
    const searchOptions = {
      provider,
      apiKey: web.search.api_key || (provider.keyEnv ? env[provider.keyEnv] || null : null),
      baseUrl: web.search.base_url ?? provider.defaultBaseUrl ?? "",
      maxResults: web.search.max_results,
      timeoutSeconds: web.search.timeout_seconds,
      allowList,
      resolve: options.resolve,
    };
    tools.push(createWebSearchTool(searchOptions));
    if (web.search.image_search) tools.push(createImageSearchTool(searchOptions));
  }
  if (web.fetch.enabled) {
    tools.push(
      createWebFetchTool({
        timeoutSeconds: web.fetch.timeout_seconds,
        maxBytes: web.fetch.max_bytes,
        maxChars: web.fetch.max_chars,
        maxRedirects: web.fetch.max_redirects,
        allowList,
        resolve: options.resolve,
      }),
    );
  }
  return tools;
}
