/**
 * Tokens and passwords. A token is 32 random bytes behind a readable prefix (`dfp_` for API tokens,
 * `dfs_` for web sessions); only its SHA-256 is stored, which is enough for a secret of that entropy.
 * Passwords are short and guessable, so they get scrypt with a per-password salt. Every compare of a
 * secret is constant-time.
 */
import { createHash, randomBytes, randomUUID, scrypt as scryptCallback, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  length: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/** What a token is for; its prefix says so at a glance (in a log line, a leaked file, a secret scanner). */
export type TokenKind = "api" | "session";

const PREFIX: Record<TokenKind, string> = { api: "dfp_", session: "dfs_" };
/** Characters of a token shown in listings and accepted by `deerflow users revoke`: the prefix and 8 more. */
export const SHOWN_PREFIX_LENGTH = 12;

/** A new token of `kind`: the secret (shown once), what is stored of it, and the part shown later. */
export function newToken(kind: TokenKind): { token: string; hash: string; prefix: string } {
  const token = PREFIX[kind] + randomBytes(32).toString("base64url");
  return { token, hash: hashToken(token), prefix: token.slice(0, SHOWN_PREFIX_LENGTH) };
}

/** The stored form of a token. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** True when `token` looks like one of ours (any kind), before any lookup. */
export function looksLikeToken(token: string): boolean {
  return /^df[ps]_[A-Za-z0-9_-]{43}$/.test(token);
}

/** Constant-time equality of two strings (false for different lengths, which only leaks the length). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 };

/** The stored form of a password: `scrypt$N$r$p$salt$key` (salt and key base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, SCRYPT.keyLength, { ...SCRYPT, maxmem: 64 * 1024 * 1024 });
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** A hash no password matches, checked when the user is unknown so both cases take the same time. */
let decoyHash: Promise<string> | undefined;

/** True when `password` matches `stored` (a `hashPassword` result). A null `stored` is checked against a decoy. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  decoyHash ??= hashPassword(randomUUID());
  const [scheme, n, r, p, salt, key] = (stored ?? (await decoyHash)).split("$");
  if (scheme !== "scrypt" || !salt || !key) return false;
  const expected = Buffer.from(key, "base64url");
  const actual = await scrypt(password, Buffer.from(salt, "base64url"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return timingSafeEqual(actual, expected) && stored !== null;
}

/** Why a password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < 8) return "The password must be at least 8 characters.";
  if (password.length > 1024) return "The password must be at most 1024 characters.";
  return null;
}
