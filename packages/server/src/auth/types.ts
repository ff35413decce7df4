/**
 * Users, their tokens and their usage (design §17, docs/auth.md). One store interface with a SQLite and
 * a Postgres implementation, in the same database as the threads, so a user and what they own are
 * removed together and quotas count the same rows from every process of a cluster.
 */
import type { QuotasConfig } from "@deerflow/harness";
import type { TokenKind } from "./secrets.js";

/** A user as stored (never with the password hash). */
export interface UserRecord {
  id: string;
  /** Sign-in name (unique, case-insensitive); an email address or a plain name. */
  name: string;
  email: string | null;
  admin: boolean;
  /** Per-user overrides of `auth.quotas`. */
  quotas: Partial<QuotasConfig>;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  has_password: boolean;
  created_at: string;
}

/** A token as stored: the hash and the shown prefix, never the secret. */
export interface TokenRecord {
  id: string;
  user_id: string;
  kind: TokenKind;
  name: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

/** A token record from a row of either database (any extra columns, such as the hash, are dropped). */
export function tokenFromRow(row: TokenRecord): TokenRecord {
  return {
    id: row.id,
    user_id: row.user_id,
    kind: row.kind,
    name: row.name,
    prefix: row.prefix,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    expires_at: row.expires_at,
  };
}

/** One user's counters for one UTC day. */
export interface DailyUsage {
  runs: number;
  tokens: number;
  upload_bytes: number;
}

/** Fields of a new user. */
export interface NewUser {
  name: string;
  email?: string | null;
  /** Already hashed (secrets.ts `hashPassword`). */
  password_hash?: string | null;
  admin?: boolean;
  oidc?: { issuer: string; subject: string };
}

/** Raised when a user name (or OIDC identity) is taken. */
export class UserExistsError extends Error {
  constructor(name: string) {
    super(`A user named "${name}" already exists. Pick another name, or remove that user first.`);
    this.name = "UserExistsError";
  }
}

/** Users, tokens and usage. */
export interface UserStore {
  count(): Promise<number>;
  /** Creates a user; throws UserExistsError when the name is taken. */
  create(user: NewUser): Promise<UserRecord>;
  get(id: string): Promise<UserRecord | null>;
  byName(name: string): Promise<UserRecord | null>;
  byOidc(issuer: string, subject: string): Promise<UserRecord | null>;
  /** Oldest first. */
  list(): Promise<UserRecord[]>;
  /** The stored password hash (null for none or an unknown user). */
  passwordHash(id: string): Promise<string | null>;
  setPassword(id: string, passwordHash: string): Promise<void>;
  update(
    id: string,
    patch: { admin?: boolean; quotas?: Partial<QuotasConfig>; email?: string | null },
  ): Promise<UserRecord | null>;
  /** Ids of the threads the user owns (to delete them with their files before `remove`). */
  ownedThreadIds(userId: string): Promise<string[]>;
  /** Deletes the user, their tokens and usage (their threads first, with `deleteThread`); false when unknown. */
  remove(id: string): Promise<boolean>;
  /** The oldest admin, who also owns the home's ownerless threads. */
  firstAdmin(): Promise<UserRecord | null>;
  /** Gives every thread without an owner to `userId` (the upgrade of a single-user home); returns how many. */
  adoptOwnerless(userId: string): Promise<number>;

  /** Stores a token (its hash) for a user. */
  addToken(token: Omit<TokenRecord, "last_used_at"> & { hash: string }): Promise<void>;
  /** The live token whose hash this is, with its user; null when unknown or expired. Marks it used. */
  resolveToken(hash: string): Promise<{ user: UserRecord; token: TokenRecord } | null>;
  listTokens(userId: string, kind: TokenKind): Promise<TokenRecord[]>;
  /** Deletes one token of a user (by id); false when it is not theirs. */
  revokeToken(userId: string, tokenId: string): Promise<boolean>;
  /** Deletes the tokens whose shown prefix starts with `prefix` (CLI); returns them. */
  revokeByPrefix(prefix: string): Promise<TokenRecord[]>;

  /** Adds to a user's counters of `day` (YYYY-MM-DD, UTC). */
  addUsage(userId: string, day: string, delta: Partial<DailyUsage>): Promise<void>;
  /**
   * Adds `amount` to one of a user's counters of `day` unless that would take it past `limit`; returns
   * false (and adds nothing) then. One statement, so two processes cannot both take the last of a limit.
   */
  addUsageWithin(
    userId: string,
    day: string,
    counter: keyof DailyUsage,
    amount: number,
    limit: number,
  ): Promise<boolean>;
  usage(userId: string, day: string): Promise<DailyUsage>;
  /** Pending and running runs on threads the user owns, across every process. */
  activeRuns(userId: string): Promise<number>;
  close(): void | Promise<void>;
}

/** Today's usage day (UTC). */
export function usageDay(at = new Date()): string {
  return at.toISOString().slice(0, 10);
}
