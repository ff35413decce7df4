/**
 * SearXNG (https://docs.searxng.org), the self-hosted metasearch engine: `GET /search?q=…&format=json`,
 * no key. The instance must have the JSON format enabled (`search.formats` in its settings.yml); a 403
 * means it is not. Images use `categories=images`.
 */
import { endpoint, field, providerList, type SearchProvider } from "./search-provider.js";

/** The SearXNG provider. */
export const searxngProvider: SearchProvider = {
  label: "SearXNG",
  async search(query, maxResults, context) {
    const url = endpoint(context.baseUrl, "/search", { q: query, format: "json" });
    const results = await providerList(this, context, { url }, "results");
    return results.slice(0, maxResults).map((item) => ({
      title: field(item, "title"),
      url: field(item, "url"),
      snippet: field(item, "content"),
      date: field(item, "publishedDate").slice(0, 10) || undefined,
    }));
  },
  async images(query, maxResults, context) {
    const url = endpoint(context.baseUrl, "/search", { q: query, format: "json", categories: "images" });
    const results = await providerList(this, context, { url }, "results");
    return results.slice(0, maxResults).map((item) => ({
      title: field(item, "title"),
      imageUrl: field(item, "img_src"),
      pageUrl: field(item, "url") || undefined,
      thumbnailUrl: field(item, "thumbnail_src") || undefined,
    }));
  },
};
