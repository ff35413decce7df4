/**
 * The auth middleware: resolves the Caller of every request before any route runs.
 *
 * Accounts are on once any user exists, or from the start with `server.auth: users`. Then every route
 * except health, info, the web app's files and the sign-in routes needs one of: a user's API token or a
 * server key (`server.api_keys`, acting as the first admin) in `X-Api-Key` / `Authorization: Bearer`, or
 * the sign-in cookie (`access_token`) with, on writes, the double-submit CSRF header. Without accounts
 * the old rules hold: server keys when configured, else open, as the home's local user.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { requestKey } from "../http/security.js";
import { type Caller, LOCAL_CALLER } from "./caller.js";
import { hashToken, looksLikeToken, safeEqual } from "./secrets.js";
import type { UserRecord, UserStore } from "./types.js";

/** The session cookie (HttpOnly) and the CSRF cookie scripts read; DeerFlow's frontend uses these names. */
export const SESSION_COOKIE = "access_token";
export const CSRF_COOKIE = "csrf_token";
export const CSRF_HEADER = "x-csrf-token";

/** Paths (without the `/api` mount) anyone may call; Slack's events are checked by their signature instead. */
const OPEN = new Set(["/ok", "/info", "/channels/slack/events"]);
/** Sign-in routes: open, they are how a caller gets credentials. */
const SIGN_IN =
  /^\/v1\/auth\/(setup-status|initialize|login\/local|register|providers|logout|oauth\/[^/]+|callback\/[^/]+)$/;

/** Methods that change nothing and need no CSRF header. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** What the middleware needs. */
export interface AuthOptions {
  users: UserStore;
  /** `server.auth`: "users" turns accounts on before anyone exists. */
  mode: "auto" | "users";
  /** Server keys (`server.api_keys`, DEER_FLOW_API_KEYS, admin keys). */
  keys: readonly string[];
  /** `server.admin_api_keys`: when set, only these server keys are admins. */
  adminKeys: readonly string[];
}

/** The answers the middleware and the auth routes share. */
export interface Authenticator {
  middleware: MiddlewareHandler;
  /** True when accounts are on (a user exists, or `server.auth: users`). */
  enabled(): Promise<boolean>;
  /** Forget the cached "no users yet" answer (after a user is created in this process). */
  refresh(): void;
}

/** The path of a request without the `/api` mount. */
export function routePath(path: string): string {
  return path.startsWith("/api/") ? path.slice(4) : path === "/api" ? "/" : path;
}

/** The caller for a user (token or session). */
export function userCaller(user: UserRecord, via: Caller["via"], tokenId?: string): Caller {
  return { userId: user.id, name: user.name, admin: user.admin, via, tokenId };
}

/** Creates the middleware over a user store. */
export function createAuthenticator(options: AuthOptions): Authenticator {
  const keys = options.keys;
  /** Admin keys identify an admin even where they do not close the server (no `api_keys`). */
  const anyKey = [...new Set([...options.keys, ...options.adminKeys])];
  const openCaller: Caller = { ...LOCAL_CALLER, admin: options.adminKeys.length === 0 };
  /** Once a user exists accounts stay on; "none yet" is re-checked at most every second (the CLI adds users). */
  let known = false;
  let checkedAt = 0;
  const enabled = async () => {
    if (options.mode === "users" || known) return true;
    if (Date.now() - checkedAt < 1000) return false;
    known = (await options.users.count()) > 0;
    checkedAt = Date.now();
    return known;
  };
  /** Who a server key acts as, re-read at most every second rather than on every keyed request. */
  let firstAdmin: { user: UserRecord | null; at: number } | undefined;
  const keyUser = async () => {
    if (!firstAdmin || Date.now() - firstAdmin.at >= 1000)
      firstAdmin = { user: await options.users.firstAdmin(), at: Date.now() };
    return firstAdmin.user;
  };
  const serverKey = (given: string) => anyKey.find((key) => safeEqual(key, given));
  const isAdminKey = (key: string) =>
    options.adminKeys.length === 0 || options.adminKeys.some((admin) => safeEqual(admin, key));

  const unauthorized = (c: Context, detail: string) => c.json({ detail }, 401);

  const middleware: MiddlewareHandler = async (c, next) => {
    const path = routePath(c.req.path);
    const accounts = await enabled();
    if (c.req.method === "OPTIONS" || OPEN.has(path)) {
      c.set("caller", openCaller);
      return next();
    }
    const given = requestKey((name) => c.req.header(name));
    if (given !== undefined) {
      const key = serverKey(given);
      if (key !== undefined) {
        const admin = isAdminKey(key);
        const first = accounts ? await keyUser() : null;
        c.set("caller", first ? { ...userCaller(first, "key"), admin } : { ...LOCAL_CALLER, admin, via: "key" });
        return next();
      }
      if (looksLikeToken(given)) {
        const found = await options.users.resolveToken(hashToken(given));
        if (found && found.token.kind === "api") {
          c.set("caller", userCaller(found.user, "token", found.token.id));
          return next();
        }
      }
      if (SIGN_IN.test(path) || (!accounts && keys.length === 0)) {
        c.set("caller", openCaller);
        return next();
      }
      return unauthorized(
        c,
        "Invalid API key or token. Create a token with `deerflow users token NAME` or in the web app's account menu.",
      );
    }
    const session = getCookie(c, SESSION_COOKIE);
    if (session && looksLikeToken(session)) {
      const found = await options.users.resolveToken(hashToken(session));
      if (found && found.token.kind === "session") {
        // The sign-in routes are checked by origin instead (routes/auth.ts): sign-out needs no token.
        if (!SAFE_METHODS.has(c.req.method) && !SIGN_IN.test(path)) {
          const cookie = getCookie(c, CSRF_COOKIE);
          const header = c.req.header(CSRF_HEADER);
          if (!cookie || !header)
            return c.json(
              { detail: "CSRF token missing. Include X-CSRF-Token header (the csrf_token cookie's value)." },
              403,
            );
          if (!safeEqual(cookie, header))
            return c.json({ detail: "CSRF token mismatch. Reload the page and try again." }, 403);
        }
        c.set("caller", userCaller(found.user, "session", found.token.id));
        return next();
      }
    }
    if (SIGN_IN.test(path)) {
      c.set("caller", openCaller);
      return next();
    }
    if (accounts)
      return unauthorized(
        c,
        "Sign in first: send an API token as X-Api-Key or Authorization: Bearer, or sign in on the web app.",
      );
    if (keys.length > 0)
      return unauthorized(c, "Missing API key. Send it as x-api-key or Authorization: Bearer <key>.");
    c.set("caller", openCaller);
    return next();
  };

  return {
    middleware,
    enabled,
    refresh() {
      checkedAt = 0;
      firstAdmin = undefined;
    },
  };
}
