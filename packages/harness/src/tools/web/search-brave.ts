/**
 * Brave Search API (https://api.search.brave.com): `GET /res/v1/web/search` and `/res/v1/images/search`
 * with the key in `X-Subscription-Token`. Snippets carry `<strong>` highlights, which are stripped.
 */
import { endpoint, field, providerList, type SearchProvider } from "./search-provider.js";

/** The Brave Search provider. */
export const braveProvider: SearchProvider = {
  label: "Brave Search",
  keyEnv: "BRAVE_API_KEY",
  defaultBaseUrl: "https://api.search.brave.com",
  async search(query, maxResults, context) {
    const url = endpoint(context.baseUrl, "/res/v1/web/search", { q: query, count: String(Math.min(maxResults, 20)) });
    const results = await providerList(this, context, { url, headers: keyHeader(context.apiKey) }, "web", "results");
    return results.map((item) => ({
      title: stripTags(field(item, "title")),
      url: field(item, "url"),
      snippet: stripTags(field(item, "description")),
      date: field(item, "page_age").slice(0, 10) || field(item, "age") || undefined,
    }));
  },
  async images(query, maxResults, context) {
    const url = endpoint(context.baseUrl, "/res/v1/images/search", { q: query, count: String(maxResults) });
    const results = await providerList(this, context, { url, headers: keyHeader(context.apiKey) }, "results");
    return results.map((item) => {
      const properties = (item as { properties?: unknown }).properties;
      const thumbnail = (item as { thumbnail?: unknown }).thumbnail;
      return {
        title: field(item, "title"),
        imageUrl: field(properties, "url"),
        pageUrl: field(item, "url") || undefined,
        thumbnailUrl: field(thumbnail, "src") || undefined,
      };
    });
  },
};

function keyHeader(apiKey: string | null): Record<string, string> {
  return { "x-subscription-token": apiKey ?? "" };
}

function stripTags(text: string): string {
  return text
    .replace(/<[^>]*>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}
