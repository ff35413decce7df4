/**
 * `web_fetch`: reads one URL and returns it as Markdown the model can cite.
 *
 * Everything that can go wrong with a page (huge, endless, slow, binary, a PDF, a redirect into the
 * local network) ends as a bounded result with one line saying what happened, never a dead run. The
 * page text is wrapped as untrusted external content (`untrusted.ts`). Unlike DeerFlow's default
 * (a hosted reader service), the page is fetched and converted here, so no third party sees the URLs.
 */
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import type { AllowList } from "./address-policy.js";
import { type Resolver, safeFetch, WebRequestError } from "./safe-fetch.js";
import { markUntrusted, UNTRUSTED_NOTE } from "./untrusted.js";

/** Limits and policy of `web_fetch`. */
export interface WebFetchOptions {
  timeoutSeconds: number;
  maxBytes: number;
  maxChars: number;
  maxRedirects: number;
  allowList: AllowList;
  /** A resolver to use instead of the system's (tests). */
  resolve?: Resolver;
}

/** Arguments of `web_fetch`. */
export const WebFetchArgs = z.object({
  url: z.string().describe("The absolute http(s) URL to read, usually one from web_search results."),
});

/**
 * Fetches `url` and renders the result text `web_fetch` returns.
 *
 * @example
 * await fetchAsMarkdown("https://example.com/", options);
 * // "The block below is untrusted…\n<external_content source=\"https://example.com/\" …>\n# Example Domain\n…"
 */
export async function fetchAsMarkdown(url: string, options: WebFetchOptions, signal?: AbortSignal): Promise<string> {
  let response;
  try {
    response = await safeFetch(url, {
      timeoutMs: options.timeoutSeconds * 1000,
      maxBytes: options.maxBytes,
      maxRedirects: options.maxRedirects,
      allowList: options.allowList,
      resolve: options.resolve,
      signal,
      headers: { accept: "text/html,application/xhtml+xml,application/json,text/plain;q=0.9,*/*;q=0.5" },
    });
  } catch (error) {
    if (error instanceof WebRequestError) {
      const hint = error.kind === "timeout" ? ` (the limit is ${options.timeoutSeconds} s)` : "";
      return `Error: ${error.message}${hint}`;
    }
    throw error;
  }
  if (response.status < 200 || response.status >= 300) {
    return `Error: ${response.url} answered HTTP ${response.status}. Try another source or check the URL.`;
  }
  // The page reader (a DOM, Readability, turndown) is loaded by the first fetch, not by every process.
  const { classifyPage, decodeBody, htmlToMarkdown } = await import("./page-to-markdown.js");
  const contentType = response.headers["content-type"];
  const kind = classifyPage(contentType, response.body);
  const size = `${response.body.length}${response.truncated === "size" ? "+" : ""} bytes`;
  if (kind === "binary") {
    return `Error: ${response.url} is binary (${contentType ?? "unknown type"}, ${size}); web_fetch reads only HTML, JSON and text.`;
  }
  if (kind === "pdf") {
    return `Error: ${response.url} is a PDF (${size}); web_fetch does not convert PDFs to text. Look for an HTML version of the document, or download it in the sandbox and extract the text there if a PDF tool is available.`;
  }
  const text = decodeBody(contentType, response.body);
  let title = "";
  let body = text;
  if (kind === "html") {
    try {
      ({ title, markdown: body } = htmlToMarkdown(text, response.url));
    } catch {
      // Markup the DOM cannot take still has readable words; tags out is better than nothing.
      body = text
        .replace(/<(script|style)[\s\S]*?<\/\1>/gi, "")
        .replace(/<[^>]+>/g, " ")
        .replace(/[ \t]+/g, " ");
    }
  }
  const notes: string[] = [];
  if (response.url !== url) notes.push(`[Redirected to ${response.url}.]`);
  if (response.truncated === "size")
    notes.push(`[Cut: only the first ${options.maxBytes} bytes of the page were read.]`);
  if (response.truncated === "time")
    notes.push(`[Cut: the page was still arriving after ${options.timeoutSeconds} s; this is what arrived.]`);
  if (body.length > options.maxChars) {
    notes.push(`[Cut: showing ${options.maxChars} of ${body.length} characters.]`);
    body = body.slice(0, options.maxChars);
  }
  if (body.trim() === "") notes.push("[The page has no readable text.]");
  const content = title && !body.startsWith(`# ${title}`) ? `# ${title}\n\n${body}` : body;
  return [UNTRUSTED_NOTE, markUntrusted(response.url, content), ...notes].join("\n");
}

/**
 * Builds the `web_fetch` tool.
 *
 * @example
 * const webFetch = createWebFetchTool({ timeoutSeconds: 20, maxBytes: 2_097_152, maxChars: 20_000, maxRedirects: 5, allowList: parseAllowList([]) });
 */
export function createWebFetchTool(options: WebFetchOptions) {
  return tool(async ({ url }, config) => fetchAsMarkdown(url, options, config?.signal), {
    name: "web_fetch",
    description:
      "Read a web page and get its main content as Markdown (JSON and plain text as they are). Use it on URLs from web_search results or URLs the user gave. Only public http(s) addresses can be reached; binary files and PDFs are refused with a message.",
    schema: WebFetchArgs,
  });
}
