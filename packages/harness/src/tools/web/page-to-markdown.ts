/**
 * Turns a fetched page into text a model can read: the article's main content as Markdown for HTML,
 * JSON and plain text as they are, and a clear refusal for binary data.
 *
 * Raw HTML wastes the context window on navigation, scripts and markup, and a model reading it sees
 * footers as often as findings. Mozilla's Readability (the engine of Firefox's reader view) picks the
 * main content; linkedom gives it a DOM without jsdom's weight; turndown writes the Markdown. Links are
 * made absolute first, so a citation copied from the Markdown still works outside the page.
 */
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";

/** How a response body is treated. */
export type PageKind = "html" | "json" | "text" | "pdf" | "binary";

const TEXT_TYPES = /^(text\/|application\/(xml|javascript|x-yaml|yaml|csv|x-ndjson|rss\+xml|atom\+xml))|\+xml$/;
const JSON_TYPES = /^application\/(json|ld\+json)$|\+json$/;

/**
 * Decides how to read a body from its Content-Type, sniffing the bytes when the type is missing or
 * generic (`application/octet-stream`).
 *
 * @example
 * classifyPage("text/html; charset=utf-8", body); // "html"
 * classifyPage("image/png", body);                // "binary"
 */
export function classifyPage(contentType: string | undefined, body: Buffer): PageKind {
  const mime = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (JSON_TYPES.test(mime)) return "json";
  if (mime === "application/pdf") return "pdf";
  if (TEXT_TYPES.test(mime)) return "text";
  if (mime !== "" && mime !== "application/octet-stream" && mime !== "binary/octet-stream") return "binary";
  const head = body.subarray(0, 4096);
  if (head.subarray(0, 5).toString("latin1") === "%PDF-") return "pdf";
  if (head.includes(0)) return "binary";
  const start = head.toString("utf8").trimStart().slice(0, 200).toLowerCase();
  if (start.startsWith("<!doctype html") || start.startsWith("<html")) return "html";
  if (start.startsWith("{") || start.startsWith("[")) return "json";
  return "text";
}

/** Decodes a body with the charset its Content-Type names, else the one its HTML declares, else UTF-8. */
export function decodeBody(contentType: string | undefined, body: Buffer): string {
  const declared = /charset\s*=\s*["']?([\w-]+)/i;
  const charset = declared.exec(contentType ?? "")?.[1] ?? metaCharset(body) ?? "utf-8";
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

/** The charset an HTML page declares in its first bytes (`<meta charset>` or `http-equiv`), if any. */
function metaCharset(body: Buffer): string | undefined {
  const head = body.subarray(0, 2048).toString("latin1");
  return /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1];
}

/** A page's title and main content as Markdown. */
export interface PageMarkdown {
  title: string;
  markdown: string;
}

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
turndown.remove(["script", "style", "noscript", "iframe", "form", "button", "svg"] as never);

/**
 * Extracts the main content of an HTML page as Markdown, with links resolved against `url`. Scripts,
 * navigation and footers never count as content; when Readability finds no article, the rest of the
 * body is used.
 *
 * @example
 * htmlToMarkdown("<html><body><article><h1>Hi</h1><p>Long text…</p></article></body></html>", "https://example.com/");
 * // { title: "…", markdown: "# Hi\n\nLong text…" }
 */
export function htmlToMarkdown(html: string, url: string): PageMarkdown {
  const { document } = parseHTML(html);
  const title = (document.querySelector("title")?.textContent ?? "").trim();
  // Readability keeps a short page whole, menus included; chrome that is never content goes first.
  document.querySelectorAll(CHROME).forEach((node: { remove(): void }) => node.remove());
  absolutise(document, url);
  const fallback = document.body?.innerHTML ?? "";
  let content = fallback;
  try {
    // Readability's cost grows steeply with nesting (seconds at a few hundred levels, minutes beyond),
    // and a hostile page can nest as deep as it likes; such pages skip it.
    if (depthOf(document.documentElement) > MAX_READABILITY_DEPTH) throw new Error("too deep for Readability");
    const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], {
      charThreshold: 200,
    }).parse();
    if (article?.content && (article.textContent ?? "").trim().length > 0) content = article.content;
  } catch {
    content = fallback;
  }
  let markdown: string;
  try {
    markdown = turndown.turndown(content);
  } catch {
    // turndown recurses per element; nesting deep enough to exhaust the stack gets plain text instead.
    markdown = (document.body?.textContent ?? "").replace(/[ \t]+/g, " ");
  }
  markdown = markdown.replace(/\n{3,}/g, "\n\n").trim();
  return { title, markdown };
}

/** Deeper than any real page we have seen (they stay under ~100 levels); Readability takes ~0.5 s at this depth. */
const MAX_READABILITY_DEPTH = 150;

/** The element nesting depth under `root`, walked without recursion. */
function depthOf(root: { children: ArrayLike<unknown> } | null): number {
  if (!root) return 0;
  let max = 0;
  const stack: [{ children: ArrayLike<unknown> }, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    max = Math.max(max, depth);
    for (const child of Array.from(node.children)) stack.push([child as { children: ArrayLike<unknown> }, depth + 1]);
  }
  return max;
}

const CHROME = "script, style, noscript, template, nav, aside, footer, form, iframe";

/** Rewrites relative `href`/`src` attributes to absolute URLs; drops `javascript:` links. */
function absolutise(
  document: {
    querySelectorAll(selector: string): Iterable<{
      getAttribute(name: string): string | null;
      setAttribute(name: string, value: string): void;
      removeAttribute(name: string): void;
    }>;
  },
  base: string,
): void {
  for (const [selector, attribute] of [
    ["a[href]", "href"],
    ["img[src]", "src"],
  ] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute) ?? "";
      try {
        const absolute = new URL(value, base);
        if (absolute.protocol === "javascript:") element.removeAttribute(attribute);
        else element.setAttribute(attribute, absolute.href);
      } catch {
        element.removeAttribute(attribute);
      }
    }
  }
}
