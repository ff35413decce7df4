/**
 * Serves the web app (`packages/web`, built to `packages/web/dist`) at `/`.
 *
 * Registered on the outer app before the API-key check: the page and its scripts must load without a
 * key so the app can ask for one. Hashed files under `/assets/` never change, so they are cached for a
 * year as immutable; `index.html` is `no-cache` so a new build is picked up on the next load.
 *
 * The SPA fallback never shadows the API: it answers only browser navigations (`Sec-Fetch-Mode:
 * navigate`, or an `Accept: text/html` request from a client that sends no fetch metadata) to the app's
 * own pages: `/`, `/threads/{id}` (one segment; every API path under a thread has more) and
 * `/settings`. The app itself calls the API under `/api`, so its fetches never reach this module.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Context, Hono } from "hono";
import { contentTypeOf } from "../http/content-types.js";

/** Where `npm run build -w @deerflow/web` writes the app, relative to this module (src/ or dist/). */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL("../../../web/dist/", import.meta.url));

const APP_PAGES = [/^\/$/, /^\/index\.html$/, /^\/threads\/[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, /^\/settings$/];
const IMMUTABLE = "public, max-age=31536000, immutable";
/**
 * The page's Content-Security-Policy: scripts, styles and connections only from this server; images
 * also from blob: (artifact previews); no plugins, no framing of the app. An HTML artifact is shown in
 * an `<iframe sandbox srcdoc>`, which inherits this policy, so its scripts and remote loads stay off.
 */
export const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' blob: data:; connect-src 'self'; frame-src 'self' blob: data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** True when the request is a page load by a browser (not a fetch by a client or the app). */
export function isNavigation(c: Context): boolean {
  const mode = c.req.header("sec-fetch-mode");
  if (mode !== undefined) return mode === "navigate";
  return (c.req.header("accept") ?? "").includes("text/html");
}

function fileResponse(c: Context, file: string, cacheControl: string, extra: Record<string, string> = {}): Response {
  const body = readFileSync(file);
  return c.body(body, 200, {
    "content-type": contentTypeOf(file),
    "cache-control": cacheControl,
    "x-content-type-options": "nosniff",
    ...extra,
  });
}

/**
 * Mounts the web app on `app` when `webDir` holds a build (`index.html`); otherwise a navigation to `/`
 * gets a short page saying how to build it. Returns whether a build was found.
 */
export function registerWebApp(app: Hono, webDir: string | null = DEFAULT_WEB_DIR): boolean {
  const index = webDir ? path.join(webDir, "index.html") : "";
  const built = Boolean(webDir) && existsSync(index);
  app.on(["GET", "HEAD"], "*", async (c, next) => {
    if (!APP_PAGES.some((page) => page.test(c.req.path)) || !isNavigation(c)) return next();
    if (!built) {
      return c.html(
        "<!doctype html><title>DeerFlow.ts</title><p>The web app is not built. Run <code>npm run build</code> (or <code>npm run serve</code>) and reload.</p>",
        503,
        { "cache-control": "no-cache" },
      );
    }
    return fileResponse(c, index, "no-cache", { "content-security-policy": APP_CSP, "referrer-policy": "no-referrer" });
  });
  if (!built || !webDir) return false;
  const assets = path.join(webDir, "assets");
  app.on(["GET", "HEAD"], "/assets/:name", (c, next) => {
    const name = c.req.param("name");
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) return next();
    const file = path.join(assets, name);
    if (!existsSync(file) || !statSync(file).isFile()) return c.json({ detail: `Not found: ${c.req.path}` }, 404);
    return fileResponse(c, file, IMMUTABLE);
  });
  for (const entry of readdirSync(webDir, { withFileTypes: true })) {
    if (!entry.isFile() || entry.name === "index.html") continue;
    const file = path.join(webDir, entry.name);
    app.on(["GET", "HEAD"], `/${entry.name}`, (c) => fileResponse(c, file, "public, max-age=3600"));
  }
  return true;
}
