/**
 * Accounts over HTTP (docs/auth.md), at DeerFlow's paths so its frontend signs in against us:
 * `/api/v1/auth/{setup-status, initialize, login/local, register, logout, me, change-password,
 * providers}`, plus API tokens (`/api/v1/auth/tokens`) and the admin's user management
 * (`/api/v1/admin/users`). A sign-in sets the HttpOnly `access_token` cookie (a session token, stored
 * hashed) and the script-readable `csrf_token` cookie the web apps echo in `X-CSRF-Token` on writes.
 */
import { rm } from "node:fs/promises";
import path from "node:path";
import { memoryPath } from "@deerflow/harness";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import { AccountError, addUser, issueToken } from "../auth/accounts.js";
import {
  createOidcClient,
  OIDC_TRANSACTION_MAX_AGE_SECONDS,
  type OidcClient,
  OidcError,
  parseTransaction,
  serializeTransaction,
} from "../auth/oidc.js";
import { CSRF_COOKIE, SESSION_COOKIE } from "../auth/authenticate.js";
import { type Caller, callerOf } from "../auth/caller.js";
import { hashToken, looksLikeToken, passwordProblem, verifyPassword, hashPassword } from "../auth/secrets.js";
import { createSignInLimiter } from "../auth/sign-in-limit.js";
import { type UserRecord, UserExistsError, usageDay } from "../auth/types.js";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { HttpError, notFound } from "../http/errors.js";
import { parseBody } from "../http/validate.js";
import { deleteThread } from "../runs/threads.js";
import { randomBytes } from "node:crypto";

/** The home's local user as `me` reports it while accounts are off: DeerFlow's auth-disabled user. */
export const LOCAL_USER = {
  id: "default",
  email: "default@test.local",
  system_role: "admin",
  needs_setup: false,
  oauth_provider: null,
} as const;

/** DeerFlow's "keep me signed in" (a JSON boolean, or "true"/"false" in its sign-in form); on by default. */
function remembers(body: { remember_me?: unknown }): boolean {
  return body.remember_me !== false && body.remember_me !== "false";
}

const Credentials = z.looseObject({
  email: z.string().min(1).max(256).optional(),
  username: z.string().min(1).max(256).optional(),
  name: z.string().min(1).max(256).optional(),
  password: z.string().min(1).max(1024),
  remember_me: z.union([z.boolean(), z.string()]).optional(),
});
const ChangePassword = z.looseObject({
  current_password: z.string().max(1024).optional(),
  old_password: z.string().max(1024).optional(),
  new_password: z.string().min(1).max(1024),
  remember_me: z.union([z.boolean(), z.string()]).optional(),
});
const NewToken = z.strictObject({ name: z.string().max(100).nullish() });
const Quotas = z.strictObject({
  concurrent_runs: z.number().int().min(0).nullable().optional(),
  runs_per_day: z.number().int().min(0).nullable().optional(),
  tokens_per_day: z.number().int().min(0).nullable().optional(),
  upload_bytes_per_day: z.number().int().min(0).nullable().optional(),
});
const NewUser = z.strictObject({
  name: z.string().min(1).max(128),
  password: z.string().max(1024).nullish(),
  admin: z.boolean().optional(),
  email: z.string().max(256).nullish(),
});
const UserPatch = z.strictObject({ admin: z.boolean().optional(), quotas: Quotas.optional() });

/**
 * The address shown for a user without one: DeerFlow's frontend requires `email` to be an address
 * (and signs in with it), so a plain name `bob` shows as `bob@users.invalid` and that signs in as bob.
 */
const NAME_ONLY_DOMAIN = "@users.invalid";

/** The user name a sign-in field names (an address made by NAME_ONLY_DOMAIN is the plain name). */
function nameFromLogin(given: string): string {
  return given.toLowerCase().endsWith(NAME_ONLY_DOMAIN) ? given.slice(0, -NAME_ONLY_DOMAIN.length) : given;
}

/** A user as the API shows it: DeerFlow's `me` fields plus ours. */
export function userJson(user: UserRecord): Record<string, unknown> {
  return {
    id: user.id,
    name: user.name,
    email: user.email ?? (user.name.includes("@") ? user.name : `${user.name}${NAME_ONLY_DOMAIN}`),
    system_role: user.admin ? "admin" : "user",
    admin: user.admin,
    needs_setup: false,
    oauth_provider: user.oidc_issuer ? "oidc" : null,
    has_password: user.has_password,
    created_at: user.created_at,
  };
}

/** The client's address, for the sign-in throttle. */
function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? "unknown";
}

/** True when the browser reached us over https (directly or through a proxy that says so). */
function overHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
}

/**
 * Login CSRF: a sign-in route posted from another site is refused. A request without `Origin` (curl, an
 * SDK) passes; a browser's must be the origin it targeted (behind DeerFlow's Next proxy that is
 * `X-Forwarded-Host`, not our `Host`) or one listed in `server.cors_origins` (`*` does not count here).
 */
function checkOrigin(c: Context, allowed: readonly string[]): void {
  const origin = c.req.header("origin");
  if (!origin) return;
  let given: URL;
  try {
    given = new URL(origin);
  } catch {
    throw new HttpError(403, "Cross-site auth request denied.");
  }
  const targeted = (c.req.header("x-forwarded-host") ?? c.req.header("host") ?? "").split(",")[0]!.trim().toLowerCase();
  if (given.host.toLowerCase() === targeted) return;
  if (allowed.some((entry) => entry !== "*" && entry.replace(/\/$/, "").toLowerCase() === given.origin.toLowerCase()))
    return;
  throw new HttpError(403, "Cross-site auth request denied.");
}

/** Reads a JSON or form-encoded body (DeerFlow's sign-in posts a form). */
async function readCredentials(c: Context): Promise<z.infer<typeof Credentials>> {
  const type = c.req.header("content-type") ?? "";
  if (type.includes("application/x-www-form-urlencoded") || type.includes("multipart/form-data")) {
    const form = await c.req.parseBody();
    const fields = Object.fromEntries(Object.entries(form).filter(([, value]) => typeof value === "string"));
    const parsed = Credentials.safeParse(fields);
    if (!parsed.success) throw new HttpError(422, "Send a user name (username or email) and a password.");
    return parsed.data;
  }
  return parseBody(c, Credentials);
}

/** What the OIDC sign-in keeps between leaving for the provider and coming back (an HttpOnly cookie). */
const OIDC_COOKIE = "df_oidc";

/** A local redirect target (`/workspace`, not `//evil.example` or `https://…`), else the fallback. */
function localPath(next: string | undefined, fallback: string): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !/[\\:]/.test(next) ? next : fallback;
}

/** The origin the browser targeted (behind a proxy: its forwarded host and scheme). */
function targetedOrigin(c: Context): string {
  const url = new URL(c.req.url);
  const host = c.req.header("x-forwarded-host")?.split(",")[0]?.trim() ?? url.host;
  const proto = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim() ?? url.protocol.replace(":", "");
  return `${proto}://${host}`;
}

/** Registers the auth, token and admin routes. */
export const registerAuthRoutes: RegisterRoutes = (api, context) => {
  const users = context.users;
  const settings = context.config.auth;
  const limiter = createSignInLimiter();
  const sessionMs = settings.session_days * 86_400_000;
  const hooks = { onFirstAdmin: (user: UserRecord) => context.onFirstAdmin(user) };

  /**
   * Signs `user` in: a new session and its two cookies. With `remember` off (DeerFlow's "keep me signed
   * in" unticked) the cookies end with the browser session; the session itself still expires.
   */
  const startSession = async (c: Context, user: UserRecord, remember = true) => {
    const { token, record } = await issueToken(users, user.id, "session", { ttlMs: sessionMs });
    const secure = overHttps(c);
    const maxAge = remember ? Math.floor(sessionMs / 1000) : undefined;
    setCookie(c, SESSION_COOKIE, token, { httpOnly: true, sameSite: "Lax", secure, path: "/", maxAge });
    setCookie(c, CSRF_COOKIE, randomBytes(48).toString("base64url"), { sameSite: "Strict", secure, path: "/", maxAge });
    return record;
  };
  const signedIn = async (c: Context, user: UserRecord, remember: boolean, status: 200 | 201 = 200) => {
    const record = await startSession(c, user, remember);
    return c.json(
      {
        ...userJson(user),
        user: userJson(user),
        token_type: "cookie",
        expires_in: Math.floor(sessionMs / 1000),
        expires_at: record.expires_at,
      },
      status,
    );
  };
  const allowedOrigins = context.config.server.cors_origins;
  const requireUser = (c: Context): Caller & { userId: string } => {
    const caller = callerOf(c);
    if (caller.userId === null)
      throw new HttpError(
        400,
        "Accounts are off on this server: create the first user with `deerflow users add NAME --admin`.",
      );
    return caller as Caller & { userId: string };
  };
  const requireAdmin = (c: Context) => {
    const caller = callerOf(c);
    if (!caller.admin) throw new HttpError(403, "Only an admin may manage users and quotas.");
    return caller;
  };

  api.get("/v1/auth/setup-status", async (c) =>
    c.json({
      needs_setup: (await users.firstAdmin()) === null,
      registration_enabled: settings.allow_registration,
      // Ours: whether sign-in is required now (a user exists, or server.auth: users).
      accounts: await context.auth.enabled(),
    }),
  );

  api.post("/v1/auth/initialize", async (c) => {
    checkOrigin(c, allowedOrigins);
    if (context.options.apiKeys.length > 0 && callerOf(c).via !== "key")
      throw new HttpError(
        403,
        "This server has API keys, so its first admin is created with `deerflow users add NAME --admin` (or with a server key).",
      );
    const body = await readCredentials(c);
    const name = body.email ?? body.username ?? body.name;
    if (!name) throw new HttpError(422, "Send the first admin's email (or name) and a password.");
    if ((await users.firstAdmin()) !== null)
      throw new HttpError(409, "This server is already set up; sign in instead.");
    const user = await createUser({ name, password: body.password, admin: true });
    return signedIn(c, user, remembers(body), 201);
  });

  const createUser = async (input: Parameters<typeof addUser>[1]) => {
    try {
      const user = await addUser(users, input, hooks);
      context.auth.refresh();
      return user;
    } catch (error) {
      if (error instanceof AccountError) throw new HttpError(422, error.message);
      if (error instanceof UserExistsError) throw new HttpError(409, error.message);
      throw error;
    }
  };

  api.post("/v1/auth/login/local", async (c) => {
    checkOrigin(c, allowedOrigins);
    const body = await readCredentials(c);
    const name = nameFromLogin(body.email ?? body.username ?? body.name ?? "");
    const address = clientAddress(c);
    const wait = limiter.retryAfter(name, address);
    if (wait > 0)
      throw new HttpError(429, `Too many failed sign-ins. Try again in ${wait} seconds.`, {
        "retry-after": String(wait),
      });
    const user = name ? await users.byName(name) : null;
    const ok = await verifyPassword(body.password, user ? await users.passwordHash(user.id) : null);
    if (!user || !ok) {
      limiter.failed(name, address);
      throw new HttpError(401, "Wrong user name or password.");
    }
    limiter.succeeded(name);
    return signedIn(c, user, remembers(body));
  });

  api.post("/v1/auth/register", async (c) => {
    checkOrigin(c, allowedOrigins);
    if (!settings.allow_registration)
      throw new HttpError(403, "Registration is off on this server: ask an admin to create your account.");
    const body = await readCredentials(c);
    const name = body.email ?? body.username ?? body.name;
    if (!name) throw new HttpError(422, "Send an email (or name) and a password.");
    return signedIn(c, await createUser({ name, password: body.password }), remembers(body), 201);
  });

  api.post("/v1/auth/logout", async (c) => {
    checkOrigin(c, allowedOrigins);
    const session = getCookie(c, SESSION_COOKIE);
    if (session && looksLikeToken(session)) {
      const found = await users.resolveToken(hashToken(session));
      if (found) await users.revokeToken(found.user.id, found.token.id);
    }
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    deleteCookie(c, CSRF_COOKIE, { path: "/" });
    return c.json({ message: "Signed out." });
  });

  api.get("/v1/auth/me", async (c) => {
    const caller = callerOf(c);
    if (caller.userId === null) return c.json(LOCAL_USER);
    const user = await users.get(caller.userId);
    if (!user) throw new HttpError(401, "This account no longer exists.");
    return c.json(userJson(user));
  });

  api.post("/v1/auth/change-password", async (c) => {
    const caller = requireUser(c);
    const body = await parseBody(c, ChangePassword);
    const current = await users.passwordHash(caller.userId);
    const given = body.current_password ?? body.old_password ?? "";
    if (current !== null && !(await verifyPassword(given, current)))
      throw new HttpError(401, "The current password is wrong.");
    const problem = passwordProblem(body.new_password);
    if (problem) throw new HttpError(422, problem);
    await users.setPassword(caller.userId, await hashPassword(body.new_password));
    // Every other sign-in of this user ends; this browser gets a fresh session.
    for (const session of await users.listTokens(caller.userId, "session"))
      await users.revokeToken(caller.userId, session.id);
    const user = await users.get(caller.userId);
    if (user && caller.via === "session") await startSession(c, user, remembers(body));
    return c.json({ message: "Password changed." });
  });

  api.get("/v1/auth/providers", (c) =>
    c.json({
      providers: settings.oidc
        ? [{ id: "oidc", name: settings.oidc.display_name, display_name: settings.oidc.display_name, type: "oidc" }]
        : [],
      local: true,
      allow_registration: settings.allow_registration,
    }),
  );

  // OIDC: leave for the provider, come back with a code, sign in (creating the user on first sign-in).
  const oidcClients = new Map<string, OidcClient>();
  const oidcFor = (c: Context) => {
    const oidc = settings.oidc;
    if (!oidc) throw notFound("OIDC sign-in (auth.oidc is not configured)");
    const base = settings.public_url?.replace(/\/$/, "") ?? targetedOrigin(c);
    const redirect = `${base}/api/v1/auth/callback/oidc`;
    let client = oidcClients.get(redirect);
    if (!client) {
      client = createOidcClient({
        ...oidc,
        redirect_uri: redirect,
        scopes: ["openid", "email", "profile", ...oidc.scopes],
      });
      oidcClients.set(redirect, client);
    }
    return client;
  };
  const oidcFailure = (error: unknown): never => {
    if (!(error instanceof OidcError)) throw error;
    const upstream = error.code === "provider_unreachable" || error.code === "provider_invalid";
    throw new HttpError(upstream ? 503 : 400, error.message);
  };
  api.get("/v1/auth/oauth/:provider", async (c) => {
    if (c.req.param("provider") !== "oidc")
      throw notFound(`Sign-in provider "${c.req.param("provider").slice(0, 40)}"`);
    const client = oidcFor(c);
    const { url, transaction } = await client.begin().catch(oidcFailure);
    const pending = {
      transaction: serializeTransaction(transaction),
      next: c.req.query("next") ?? null,
      remember: c.req.query("remember_me") !== "false",
      // Through DeerFlow's frontend (its Next proxy forwards the host), come back to its callback page.
      deerflow: c.req.header("x-forwarded-host") !== undefined,
    };
    setCookie(c, OIDC_COOKIE, Buffer.from(JSON.stringify(pending)).toString("base64url"), {
      httpOnly: true,
      sameSite: "Lax",
      secure: overHttps(c),
      path: "/",
      maxAge: OIDC_TRANSACTION_MAX_AGE_SECONDS,
    });
    return c.redirect(url, 302);
  });
  api.get("/v1/auth/callback/:provider", async (c) => {
    if (c.req.param("provider") !== "oidc")
      throw notFound(`Sign-in provider "${c.req.param("provider").slice(0, 40)}"`);
    const client = oidcFor(c);
    let pending: { transaction?: string; next?: string | null; remember?: boolean; deerflow?: boolean } = {};
    try {
      pending = JSON.parse(Buffer.from(getCookie(c, OIDC_COOKIE) ?? "", "base64url").toString() || "{}");
    } catch {
      pending = {};
    }
    deleteCookie(c, OIDC_COOKIE, { path: "/" });
    const identity = await client
      .finish(new URL(c.req.url).searchParams, parseTransaction(pending.transaction))
      .catch(oidcFailure);
    let user = await users.byOidc(identity.issuer, identity.subject);
    if (!user) {
      const wanted = identity.email && identity.email_verified !== false ? identity.email : null;
      const taken = wanted ? await users.byName(wanted) : null;
      user = await createUser({
        name:
          wanted && !taken ? wanted : `oidc-${identity.subject.replace(/[^A-Za-z0-9._-]/g, "").slice(0, 40) || "user"}`,
        email: wanted,
        oidc: { issuer: identity.issuer, subject: identity.subject },
      });
    }
    await startSession(c, user, pending.remember !== false);
    const next = localPath(pending.next ?? undefined, pending.deerflow ? "/workspace" : "/");
    return c.redirect(pending.deerflow ? `/auth/callback?next=${encodeURIComponent(next)}` : next, 302);
  });

  // API tokens of the signed-in user.
  api.get("/v1/auth/tokens", async (c) => {
    const caller = requireUser(c);
    return c.json({ tokens: await users.listTokens(caller.userId, "api") });
  });
  api.post("/v1/auth/tokens", async (c) => {
    const caller = requireUser(c);
    const body = await parseBody(c, NewToken);
    const { token, record } = await issueToken(users, caller.userId, "api", { name: body.name ?? null });
    return c.json({ ...record, token }, 201);
  });
  api.delete("/v1/auth/tokens/:token_id", async (c) => {
    const caller = requireUser(c);
    if (!(await users.revokeToken(caller.userId, c.req.param("token_id")))) throw notFound("Token");
    return c.body(null, 204);
  });

  // Users, quotas and usage: admins only. Nothing here reads anyone's threads.
  api.get("/v1/admin/users", async (c) => {
    requireAdmin(c);
    const day = usageDay();
    const list = await users.list();
    return c.json({
      users: await Promise.all(
        list.map(async (user) => ({
          ...userJson(user),
          quotas: user.quotas,
          effective_quotas: { ...settings.quotas, ...user.quotas },
          usage: { day, ...(await users.usage(user.id, day)), active_runs: await users.activeRuns(user.id) },
        })),
      ),
      default_quotas: settings.quotas,
    });
  });
  api.post("/v1/admin/users", async (c) => {
    requireAdmin(c);
    const body = await parseBody(c, NewUser);
    const user = await createUser({ name: body.name, password: body.password, admin: body.admin, email: body.email });
    const { token } = await issueToken(users, user.id, "api", { name: "created by an admin" });
    return c.json({ ...userJson(user), token }, 201);
  });
  api.patch("/v1/admin/users/:user_id", async (c) => {
    const caller = requireAdmin(c);
    const body = await parseBody(c, UserPatch);
    const id = c.req.param("user_id");
    const current = await users.get(id);
    if (!current) throw notFound("User");
    if (body.admin === false && id === caller.userId)
      throw new HttpError(409, "You cannot remove your own admin role; ask another admin.");
    const quotas = body.quotas ? { ...current.quotas, ...body.quotas } : undefined;
    const user = await users.update(id, { admin: body.admin, quotas });
    return c.json(userJson(user!));
  });
  api.delete("/v1/admin/users/:user_id", async (c) => {
    const caller = requireAdmin(c);
    const id = c.req.param("user_id");
    if (id === caller.userId) throw new HttpError(409, "You cannot remove yourself; ask another admin.");
    if (!(await users.get(id))) throw notFound("User");
    await removeUser(context, id);
    return c.body(null, 204);
  });
};

/** Deletes a user with every thread they own (records, runs, checkpoints, files), their crons, their memory, then the account. */
export async function removeUser(context: ServerContext, userId: string): Promise<number> {
  const threads = await context.users.ownedThreadIds(userId);
  for (const threadId of threads) await deleteThread(context, threadId);
  await context.crons.deleteForOwner(userId);
  const storage = context.config.memory.storage_path;
  const root = storage ? path.resolve(context.harness.home, storage) : context.harness.home;
  await rm(path.dirname(memoryPath(root, undefined, userId)), { recursive: true, force: true });
  await context.users.remove(userId);
  return threads.length;
}
