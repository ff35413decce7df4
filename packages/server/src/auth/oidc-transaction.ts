/**
 * What one browser's sign-in must remember between `begin` and the provider's callback: the `state`
 * that ties the callback to this browser (CSRF), the `nonce` that ties the ID token to this sign-in
 * (replay), and the PKCE `code_verifier` that makes a stolen code useless. The server keeps it in a
 * short-lived cookie: HttpOnly, SameSite=Lax (Strict would not be sent on the provider's cross-site
 * redirect back), Secure on https, Max-Age `OIDC_TRANSACTION_MAX_AGE_SECONDS`, cleared after the callback.
 */
import { randomBytes } from "node:crypto";

/** One sign-in in progress. `created_at` is milliseconds since the epoch. */
export interface OidcTransaction {
  state: string;
  nonce: string;
  code_verifier: string;
  created_at: number;
}

/** How long a sign-in may take from `begin` to the callback (10 minutes); also the cookie's Max-Age. */
export const OIDC_TRANSACTION_MAX_AGE_SECONDS = 600;

/** A new transaction: three independent 256-bit random values (base64url, 43 characters each). */
export function newTransaction(now = Date.now()): OidcTransaction {
  return { state: random(), nonce: random(), code_verifier: random(), created_at: now };
}

/**
 * The transaction as one cookie-safe value (base64url of its JSON).
 *
 * @example
 * response.headers.append("set-cookie", `deerflow_oidc=${serializeTransaction(t)}; HttpOnly; SameSite=Lax; Path=/api/v1/auth; Max-Age=600`);
 */
export function serializeTransaction(transaction: OidcTransaction): string {
  const { state, nonce, code_verifier, created_at } = transaction;
  return Buffer.from(JSON.stringify({ state, nonce, code_verifier, created_at })).toString("base64url");
}

/**
 * Reads a value written by `serializeTransaction`. Anything else (missing cookie, edited or truncated
 * value) gives `null`, which `finish` reports as "start the sign-in again".
 *
 * @example
 * parseTransaction(serializeTransaction(t)) // equal to t
 * parseTransaction(undefined) // null
 */
export function parseTransaction(text: string | undefined): OidcTransaction | null {
  if (!text || text.length > 1024) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { state, nonce, code_verifier, created_at } = value as Record<string, unknown>;
  const token = /^[A-Za-z0-9_-]{43,128}$/;
  if (![state, nonce, code_verifier].every((part) => typeof part === "string" && token.test(part))) return null;
  if (typeof created_at !== "number" || !Number.isFinite(created_at)) return null;
  return { state, nonce, code_verifier, created_at } as OidcTransaction;
}

function random(): string {
  return randomBytes(32).toString("base64url");
}
