/**
 * Tavily (https://tavily.com), a search API built for agents: `POST /search` with a JSON body and the key
 * as a bearer token. Images come from the same endpoint with `include_images`.
 */
import { endpoint, field, type ProviderContext, providerList, type SearchProvider } from "./search-provider.js";

/** The Tavily provider. */
export const tavilyProvider: SearchProvider = {
  label: "Tavily",
  keyEnv: "TAVILY_API_KEY",
  defaultBaseUrl: "https://api.tavily.com",
  async search(query, maxResults, context) {
    const body = { query, max_results: maxResults, search_depth: "basic" };
    const results = await post(this, context, body, "results");
    return results.map((item) => ({
      title: field(item, "title"),
      url: field(item, "url"),
      snippet: field(item, "content"),
      date: field(item, "published_date") || undefined,
    }));
  },
  async images(query, maxResults, context) {
    const body = { query, max_results: maxResults, include_images: true, include_image_descriptions: true };
    const images = await post(this, context, body, "images");
    // Tavily answers plain URLs, or {url, description} objects when descriptions are asked for.
    return images.map((item) =>
      typeof item === "string"
        ? { title: "", imageUrl: item }
        : { title: field(item, "description"), imageUrl: field(item, "url") },
    );
  },
};

/** Both calls are the same `POST /search` with the key as a bearer token; only the body differs. */
function post(provider: SearchProvider, context: ProviderContext, body: unknown, key: string): Promise<unknown[]> {
  const headers = { authorization: `Bearer ${context.apiKey}` };
  return providerList(
    provider,
    context,
    { url: endpoint(context.baseUrl, "/search"), method: "POST", headers, body },
    key,
  );
}
