/**
 * The server's account routes (`/api/v1/auth/*`, `/api/v1/admin/users`), typed for the app: who is
 * signed in, signing in and out, the first admin's setup, API tokens, and the admin's user list.
 * Errors are `apiFetch`'s (they carry `status`, and `errorDetail` gives the server's reason).
 */
import { apiFetch } from "../api";

/** The signed-in person as `GET /api/v1/auth/me` describes them. */
export interface Me {
  id: string;
  name?: string;
  email: string;
  system_role: "admin" | "user";
  admin?: boolean;
  has_password?: boolean;
  oauth_provider?: string | null;
}

/** How one may sign in (`GET /api/v1/auth/providers`). */
export interface Providers {
  providers: { id: string; name: string; type: string }[];
  local: boolean;
  allow_registration: boolean;
}

/** An API token as listed (the secret itself is only in the answer that created it). */
export interface ApiToken {
  id: string;
  name: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

/** Per-user limits; null = unlimited. */
export interface Quotas {
  concurrent_runs: number | null;
  runs_per_day: number | null;
  tokens_per_day: number | null;
  upload_bytes_per_day: number | null;
}

/** A user as the admin list shows it. */
export interface AdminUser extends Me {
  name: string;
  created_at: string;
  quotas: Partial<Quotas>;
  effective_quotas: Quotas;
  usage: { day: string; runs: number; tokens: number; upload_bytes: number; active_runs: number };
}

/**
 * DeerFlow's user for a server without accounts: `me` answers it while anyone may use the server, and
 * the app then shows no account UI at all.
 */
export function isLocalUser(me: Me): boolean {
  return me.id === "default";
}

/** True when `me` may manage users. */
export function isAdmin(me: Me): boolean {
  return me.admin ?? me.system_role === "admin";
}

/** The name to show for a user. */
export function displayName(me: Me): string {
  return me.name ?? me.email;
}

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

async function read<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** `GET /v1/auth/me`; rejects with status 401 when accounts are on and nobody is signed in. */
export async function fetchMe(apiKey: string | undefined): Promise<Me> {
  return read<Me>(await apiFetch("/v1/auth/me", apiKey));
}

/** True while no admin exists (`GET /v1/auth/setup-status`). */
export async function needsSetup(): Promise<boolean> {
  return (await read<{ needs_setup: boolean }>(await apiFetch("/v1/auth/setup-status", undefined))).needs_setup;
}

/** The sign-in options. */
export async function fetchProviders(): Promise<Providers> {
  return read<Providers>(await apiFetch("/v1/auth/providers", undefined));
}

/** Signs in with a user name (or email) and password; the server sets the session cookies. */
export async function signIn(email: string, password: string): Promise<void> {
  await apiFetch("/v1/auth/login/local", undefined, json("POST", { email, password }));
}

/** Creates an account when the server allows registration, and signs in. */
export async function register(email: string, password: string): Promise<void> {
  await apiFetch("/v1/auth/register", undefined, json("POST", { email, password }));
}

/** Creates the first admin and signs in as them. */
export async function initialize(email: string, password: string): Promise<void> {
  await apiFetch("/v1/auth/initialize", undefined, json("POST", { email, password }));
}

/** Ends the session (the server revokes it and clears the cookies). */
export async function signOut(): Promise<void> {
  await apiFetch("/v1/auth/logout", undefined, { method: "POST" });
}

/** Changes the signed-in user's password. */
export async function changePassword(
  apiKey: string | undefined,
  currentPassword: string,
  newPassword: string,
): Promise<void> {
  await apiFetch(
    "/v1/auth/change-password",
    apiKey,
    json("POST", { current_password: currentPassword, new_password: newPassword }),
  );
}

/** The signed-in user's API tokens. */
export async function listTokens(apiKey: string | undefined): Promise<ApiToken[]> {
  return (await read<{ tokens: ApiToken[] }>(await apiFetch("/v1/auth/tokens", apiKey))).tokens;
}

/** Creates an API token; the answer's `token` is the secret, shown this once. */
export async function createToken(apiKey: string | undefined, name: string): Promise<ApiToken & { token: string }> {
  return read(await apiFetch("/v1/auth/tokens", apiKey, json("POST", { name: name || null })));
}

/** Revokes an API token. */
export async function revokeToken(apiKey: string | undefined, id: string): Promise<void> {
  await apiFetch(`/v1/auth/tokens/${encodeURIComponent(id)}`, apiKey, { method: "DELETE" });
}

/** Every user with their quotas and today's usage (admins only). */
export async function listUsers(apiKey: string | undefined): Promise<{ users: AdminUser[]; default_quotas: Quotas }> {
  return read(await apiFetch("/v1/admin/users", apiKey));
}

/** Creates a user; the answer's `token` is their first API token, shown this once. */
export async function createUser(
  apiKey: string | undefined,
  user: { name: string; password?: string; admin: boolean },
): Promise<Me & { token: string }> {
  return read(await apiFetch("/v1/admin/users", apiKey, json("POST", user)));
}

/** Changes a user's role or quotas (a quota of null is unlimited). */
export async function updateUser(
  apiKey: string | undefined,
  id: string,
  patch: { admin?: boolean; quotas?: Partial<Quotas> },
): Promise<void> {
  await apiFetch(`/v1/admin/users/${encodeURIComponent(id)}`, apiKey, json("PATCH", patch));
}

/** Removes a user and everything they own. */
export async function removeUser(apiKey: string | undefined, id: string): Promise<void> {
  await apiFetch(`/v1/admin/users/${encodeURIComponent(id)}`, apiKey, { method: "DELETE" });
}
