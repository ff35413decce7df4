/**
 * Creating users and tokens, shared by `deerflow users` and the HTTP routes so both apply the same
 * rules: names are checked, passwords hashed, tokens shown once, and the first admin inherits the home's
 * ownerless threads (and, through `onFirstAdmin`, its memory): the upgrade of a single-user home.
 */
import { randomUUID } from "node:crypto";
import { hashPassword, newToken, passwordProblem, type TokenKind } from "./secrets.js";
import type { TokenRecord, UserRecord, UserStore } from "./types.js";

/** A user name: an email address or letters, digits and `._-` (1–128 characters). */
const NAME = /^[A-Za-z0-9._@+-]{1,128}$/;

/** Raised for a request that cannot be carried out as asked (bad name, weak password, …). */
export class AccountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AccountError";
  }
}

/** Why a user name is refused, or null. */
export function nameProblem(name: string): string | null {
  if (!NAME.test(name))
    return `"${name.slice(0, 60)}" is not a valid user name: use 1-128 letters, digits and . _ @ + - (an email address works).`;
  return null;
}

/** What happens once, when the first admin is created (the server and CLI move the local memory). */
export interface AccountHooks {
  onFirstAdmin?(user: UserRecord): Promise<void> | void;
}

/** Options of `addUser`. */
export interface AddUser {
  name: string;
  password?: string | null;
  admin?: boolean;
  email?: string | null;
  oidc?: { issuer: string; subject: string };
}

/**
 * Creates a user. When this is the first admin, the home's ownerless threads become theirs and
 * `hooks.onFirstAdmin` runs. Throws AccountError for a bad name or password, UserExistsError when taken.
 */
export async function addUser(users: UserStore, input: AddUser, hooks: AccountHooks = {}): Promise<UserRecord> {
  const problem = nameProblem(input.name) ?? (input.password != null ? passwordProblem(input.password) : null);
  if (problem) throw new AccountError(problem);
  const hadAdmin = input.admin ? (await users.firstAdmin()) !== null : true;
  const user = await users.create({
    name: input.name,
    email: input.email ?? (input.name.includes("@") ? input.name : null),
    password_hash: input.password != null ? await hashPassword(input.password) : null,
    admin: Boolean(input.admin),
    oidc: input.oidc,
  });
  if (!hadAdmin) {
    await users.adoptOwnerless(user.id);
    await hooks.onFirstAdmin?.(user);
  }
  return user;
}

/** Issues a token for a user; the secret is in the result only. */
export async function issueToken(
  users: UserStore,
  userId: string,
  kind: TokenKind,
  options: { name?: string | null; ttlMs?: number } = {},
): Promise<{ token: string; record: TokenRecord }> {
  const { token, hash, prefix } = newToken(kind);
  const at = new Date();
  const record: TokenRecord = {
    id: randomUUID(),
    user_id: userId,
    kind,
    name: options.name ?? null,
    prefix,
    created_at: at.toISOString(),
    last_used_at: null,
    expires_at: options.ttlMs ? new Date(at.getTime() + options.ttlMs).toISOString() : null,
  };
  await users.addToken({ ...record, hash });
  return { token, record };
}
