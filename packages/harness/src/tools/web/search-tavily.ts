/**
 * Tavily (https://tavily.com), a search API built for agents: `POST /search` with a JSON body and the key
 * as a bearer token. Images come from the same endpoint with `include_images`.
 */
import {
  endpoint,
  field,
  type ImageHit,
  list,
  providerJson,
  type SearchHit,
  type SearchProvider,
} from "./search-provider.js";

/** The Tavily provider. */
export const tavilyProvider: SearchProvider = {
  label: "Tavily",
  keyEnv: "TAVILY_API_KEY",
  defaultBaseUrl: "https://api.tavily.com",
  async search(query, maxResults, context): Promise<SearchHit[]> {
    const body = { query, max_results: maxResults, search_depth: "basic" };
    const data = await providerJson(
      this,
      {
        url: endpoint(context.baseUrl, "/search"),
        method: "POST",
        headers: { authorization: `Bearer ${context.apiKey}` },
        body,
      },
      context,
    );
    return list(data, "results").map((item) => ({
      title: field(item, "title"),
      url: field(item, "url"),
      snippet: field(item, "content"),
      date: field(item, "published_date") || undefined,
    }));
  },
  async images(query, maxResults, context): Promise<ImageHit[]> {
    const body = { query, max_results: maxResults, include_images: true, include_image_descriptions: true };
    const data = await providerJson(
      this,
      {
        url: endpoint(context.baseUrl, "/search"),
        method: "POST",
        headers: { authorization: `Bearer ${context.apiKey}` },
        body,
      },
      context,
    );
    // Tavily answers plain URLs, or {url, description} objects when descriptions are asked for.
    return list(data, "images").map((item) =>
      typeof item === "string"
        ? { title: "", imageUrl: item }
        : { title: field(item, "description"), imageUrl: field(item, "url") },
    );
  },
};
