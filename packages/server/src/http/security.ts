/**
 * What guards every route: API keys, CORS and the body size limits.
 *
 * Keys come from `server.api_keys` or `DEER_FLOW_API_KEYS`; with none configured the server is open
 * (it binds 127.0.0.1 by default, and `deerflow serve` refuses other hosts without keys). Health and
 * info stay open so load balancers and agent-chat-ui's connection check work without a key.
 */
import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

const OPEN_PATHS = new Set(["/ok", "/info", "/api/ok", "/api/info"]);

/** Headers clients send that CORS must allow. */
export const ALLOWED_HEADERS = [
  "content-type",
  "x-api-key",
  "authorization",
  "x-auth-scheme",
  "last-event-id",
  "x-csrf-token",
  "prefer",
];
/** Headers clients must be able to read across origins (run ids, reconnect target, pagination). */
export const EXPOSED_HEADERS = ["content-location", "location", "x-pagination-next", "x-pagination-total"];

/** API keys from config plus `DEER_FLOW_API_KEYS` (comma-separated), deduplicated. */
export function resolveApiKeys(configKeys: readonly string[], env: Record<string, string | undefined>): string[] {
  const fromEnv = (env.DEER_FLOW_API_KEYS ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter(Boolean);
  return [...new Set([...configKeys, ...fromEnv])];
}

/** Admin keys pass the global check too, but only when keys are on (admin keys alone do not close the server). */
export function withAdminKeys(keys: readonly string[], adminKeys: readonly string[]): string[] {
  return keys.length === 0 ? [...keys] : [...new Set([...keys, ...adminKeys])];
}

/** Requires one of `keys` in `x-api-key` or `Authorization: Bearer` (no-op when `keys` is empty). */
export function apiKeyAuth(keys: readonly string[]): MiddlewareHandler {
  const expected = keys.map((key) => Buffer.from(key));
  return async (c, next) => {
    if (expected.length === 0 || c.req.method === "OPTIONS" || OPEN_PATHS.has(c.req.path)) return next();
    const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    const given = c.req.header("x-api-key") ?? bearer;
    if (given === undefined) {
      return c.json({ detail: "Missing API key. Send it as x-api-key or Authorization: Bearer <key>." }, 401);
    }
    const candidate = Buffer.from(given);
    const ok = expected.some((key) => key.length === candidate.length && timingSafeEqual(key, candidate));
    if (!ok) return c.json({ detail: "Invalid API key." }, 401);
    return next();
  };
}

/** Methods a preflight allows. */
const ALLOWED_METHODS = "GET,POST,PUT,PATCH,DELETE,OPTIONS";
/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = "600";

/**
 * CORS for browser clients (agent-chat-ui, DeerFlow's frontend, useStream): `origins` is `["*"]` or the
 * origins allowed (a request from any other gets no `Access-Control-Allow-Origin`). Every OPTIONS request
 * is a preflight, answered here with 204 before the API key check. Other requests get their headers once
 * the route answered, set on its response: hono's own `cors` sets them on the context's response before
 * the route runs, which makes Hono copy every response the route returns into a new web `Response`, whose
 * body @hono/node-server then reads back through a stream (a tenth of a millisecond per request).
 */
export function corsPolicy(origins: readonly string[]): MiddlewareHandler {
  const anyOrigin = origins.includes("*");
  const allowed = new Set(origins);
  const allowOrigin = (origin: string | undefined): string | undefined =>
    anyOrigin ? "*" : origin !== undefined && allowed.has(origin) ? origin : undefined;
  const exposed = EXPOSED_HEADERS.join(",");
  const allowedHeaders = ALLOWED_HEADERS.join(",");
  return async (c, next) => {
    const origin = allowOrigin(c.req.header("origin"));
    if (c.req.method === "OPTIONS") {
      const headers: Record<string, string> = {
        ...(origin ? { "access-control-allow-origin": origin } : {}),
        "access-control-expose-headers": exposed,
        "access-control-max-age": PREFLIGHT_MAX_AGE,
        "access-control-allow-methods": ALLOWED_METHODS,
        "access-control-allow-headers": allowedHeaders,
        vary: anyOrigin ? "Access-Control-Request-Headers" : "Origin, Access-Control-Request-Headers",
      };
      return c.body(null, 204, headers);
    }
    await next();
    let headers: Headers;
    try {
      headers = c.res.headers;
      headers.set("access-control-expose-headers", exposed);
    } catch {
      // A response whose headers are immutable (one `fetch` returned): answer with a copy.
      c.res = new Response(c.res.body, c.res);
      headers = c.res.headers;
      headers.set("access-control-expose-headers", exposed);
    }
    if (origin) headers.set("access-control-allow-origin", origin);
    if (!anyOrigin) headers.append("vary", "Origin");
  };
}

/**
 * Routes that take multipart uploads and bound their bodies themselves (their limit is the upload or
 * archive limit, not `max_body_bytes`). Chosen by route, never by the `Content-Type` a client claims:
 * a `multipart/*` header on a JSON route must not switch the limit off.
 */
const OWN_LIMIT_ROUTES = [/^(\/api)?\/threads\/[^/]+\/uploads$/, /^(\/api)?\/skills\/install$/];

/** True for the routes whose handlers apply their own (larger) body limit. */
export function hasOwnBodyLimit(method: string, path: string): boolean {
  return method === "POST" && OWN_LIMIT_ROUTES.some((route) => route.test(path));
}

/** Methods whose requests carry no body the server reads. */
const BODILESS_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * 413 for bodies over `maxBytes` on every route except the upload routes, whatever the content type.
 * A declared `Content-Length` over the limit is refused before a byte is read; a chunked body is counted
 * as it arrives and refused as soon as it passes the limit, so memory never holds more than `maxBytes`.
 * The declared length is read from the headers here: the body stays unread, so the route reads it
 * straight from Node's request instead of through a web `Request` made only for the limit.
 */
export function requestBodyLimit(maxBytes: number): MiddlewareHandler {
  const tooLarge = (c: Context) =>
    c.json(
      {
        detail: `Request body is larger than ${maxBytes} bytes (server.max_body_bytes); send less, or raise the limit.`,
      },
      413,
    );
  const counted = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    if (BODILESS_METHODS.has(c.req.method) || hasOwnBodyLimit(c.req.method, c.req.path)) return next();
    const declared = c.req.header("content-length");
    if (declared !== undefined && c.req.header("transfer-encoding") === undefined)
      return Number.parseInt(declared, 10) > maxBytes ? tooLarge(c) : next();
    return counted(c, next);
  };
}

/** The key a request carries (`x-api-key` or `Authorization: Bearer`), if any. */
export function requestKey(header: (name: string) => string | undefined): string | undefined {
  return header("x-api-key") ?? /^Bearer\s+(.+)$/i.exec(header("authorization") ?? "")?.[1];
}

/**
 * True when `given` is one of `adminKeys`, or when no admin keys are configured (then the global API
 * key check is the only gate). Compared in constant time.
 */
export function isAdminKey(adminKeys: readonly string[], given: string | undefined): boolean {
  if (adminKeys.length === 0) return true;
  if (given === undefined) return false;
  const candidate = Buffer.from(given);
  return adminKeys.some((key) => {
    const expected = Buffer.from(key);
    return expected.length === candidate.length && timingSafeEqual(expected, candidate);
  });
}
