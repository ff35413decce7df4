/**
 * `image_search`: image URLs for a query from the configured provider's image mode, for reports that
 * need a picture or a chart. Offered only when `web.search.image_search` is on; shares `web_search`'s
 * provider, key handling and failure lines.
 */
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { type ImageHit, ProviderError } from "./search-provider.js";
import { markUntrusted, UNTRUSTED_NOTE } from "./untrusted.js";
import { missingKeyLine, providerContext, type WebSearchOptions } from "./web-search.js";

/** Renders image hits as a numbered list. */
export function formatImageResults(query: string, label: string, hits: readonly ImageHit[]): string {
  if (hits.length === 0) return `No images for "${query}" (${label}). Try other words.`;
  const lines = hits.map((hit, index) => {
    const extra = [
      hit.pageUrl && `   page: ${hit.pageUrl}`,
      hit.thumbnailUrl && `   thumbnail: ${hit.thumbnailUrl}`,
    ].filter(Boolean);
    return [`${index + 1}. ${hit.title.trim() || "(untitled)"}`, `   image: ${hit.imageUrl}`, ...extra].join("\n");
  });
  return `Image results for "${query}" (${label}, ${hits.length}):\n${lines.join("\n")}\nEmbed an image in Markdown with ![description](image URL), and credit the page it came from.`;
}

/** Arguments of `image_search`. */
export const ImageSearchArgs = z.object({
  query: z.string().min(1).describe("What the images should show."),
  max_results: z.number().int().positive().optional().describe("How many images to return (capped by configuration)."),
});

/** Builds the `image_search` tool. */
export function createImageSearchTool(options: WebSearchOptions) {
  return tool(
    async ({ query, max_results }, config) => {
      const missing = missingKeyLine("image_search", options);
      if (missing) return missing;
      const count = Math.min(max_results ?? options.maxResults, options.maxResults);
      try {
        const hits = (await options.provider.images(query, count, providerContext(options, config?.signal)))
          .filter((hit) => hit.imageUrl !== "")
          .slice(0, count);
        const text = formatImageResults(query, options.provider.label, hits);
        return hits.length === 0
          ? text
          : `${UNTRUSTED_NOTE}\n${markUntrusted(`${options.provider.label} image search`, text)}`;
      } catch (error) {
        if (error instanceof ProviderError) return `Error: ${error.message}`;
        throw error;
      }
    },
    {
      name: "image_search",
      description: `Find images on the web (${options.provider.label}). Returns image URLs with the pages they are on.`,
      schema: ImageSearchArgs,
    },
  );
}
