/**
 * Content types by file extension, for the web app's static files and for artifacts. A short table is
 * enough: the web build emits a handful of kinds, and an artifact of an unknown kind is served as
 * `application/octet-stream` (a download), which is the safe default.
 */
import path from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".markdown": "text/markdown; charset=utf-8",
  ".csv": "text/csv; charset=utf-8",
  ".tsv": "text/tab-separated-values; charset=utf-8",
  ".py": "text/plain; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".tsx": "text/plain; charset=utf-8",
  ".jsx": "text/plain; charset=utf-8",
  ".sh": "text/plain; charset=utf-8",
  ".yaml": "text/plain; charset=utf-8",
  ".yml": "text/plain; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".pdf": "application/pdf",
};

/** The content type for a file name; `application/octet-stream` when unknown. */
export function contentTypeOf(fileName: string): string {
  return TYPES[path.extname(fileName).toLowerCase()] ?? "application/octet-stream";
}

/** True for types a browser would run or render as a page (HTML, SVG, XML): serve those as downloads. */
export function isActiveContent(contentType: string): boolean {
  return /^(text\/html|image\/svg\+xml|application\/xml|application\/xhtml)/.test(contentType);
}
