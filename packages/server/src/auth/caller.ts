/**
 * Who is calling. The auth middleware resolves one Caller per request and every route reads it with
 * `callerOf(c)`; nothing else decides who owns what. `userId` is the owner of what the caller creates
 * and the only owner whose rows it sees; null is the home's local user (before any account exists).
 */
import type { Context } from "hono";

/** The resolved identity of a request. */
export interface Caller {
  /** Owner id of everything this caller creates and sees; null = the home's local user. */
  userId: string | null;
  /** Shown name (user name, or "local"). */
  name: string;
  /** May manage users, quotas, skills and MCP servers. Never a licence to read others' threads. */
  admin: boolean;
  /** How the caller proved who it is. */
  via: "open" | "key" | "token" | "session";
  /** The session or API token used (sign-out deletes a session). */
  tokenId?: string;
}

declare module "hono" {
  interface ContextVariableMap {
    caller: Caller;
  }
}

/** The local user of a home without accounts: sees and owns the ownerless rows. */
export const LOCAL_CALLER: Caller = { userId: null, name: "local", admin: true, via: "open" };

/** The caller of this request (the local user when no auth middleware ran, e.g. in unit tests of a route). */
export function callerOf(c: Context): Caller {
  return c.get("caller") ?? LOCAL_CALLER;
}

/** True when a row owned by `owner` belongs to `caller`. Admins are not exempt: ownership is not a role. */
export function owns(caller: Caller, owner: string | null | undefined): boolean {
  return (owner ?? null) === caller.userId;
}
