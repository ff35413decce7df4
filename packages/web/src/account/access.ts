/**
 * Who may use the app, decided once on load (and again after a sign-in, a sign-out or a 401): `me`
 * answers the signed-in user, DeerFlow's local user (accounts off: the app works as it always did), or
 * 401, which means the sign-in page, the first admin's setup, or the API key form.
 */
import { useCallback, useEffect, useState } from "react";
import { errorDetail, isNotFound, isUnauthorized } from "../api";
import { fetchMe, fetchProviders, isLocalUser, type Me, needsSetup, type Providers } from "./account-api";

/** What the app shows. */
export type Access =
  | { kind: "checking" }
  /** The app itself; `user` is null while accounts are off (or not known yet: `offline`). */
  | { kind: "ready"; user: Me | null; offline?: boolean }
  | { kind: "sign-in"; providers: Providers }
  | { kind: "setup" }
  /** The API key form; `accounts` offers signing in with a password instead. */
  | { kind: "key"; rejected: boolean; accounts: boolean; providers?: Providers };

/** What a 401 from `me` comes with. */
export interface Unauthorized {
  /** An API key was sent (and refused). */
  keySent: boolean;
  /** The 401's detail. */
  detail: string;
  /** `setup-status`: no admin exists yet. */
  needsSetup: boolean;
  providers: Providers;
}

/**
 * Where a 401 from `me` leads. With an admin, accounts are on: the sign-in page (or, for a refused
 * key, the key form offering it). Without one, the server either requires accounts from the start
 * (`server.auth: users`; its 401 asks to sign in) and needs its first admin, or only has API keys.
 *
 * @example
 * accessAfter401({ keySent: false, detail: "Sign in first: …", needsSetup: true, providers }) // { kind: "setup" }
 * accessAfter401({ keySent: false, detail: "Missing API key. …", needsSetup: true, providers }).kind // "key"
 */
export function accessAfter401({ keySent, detail, needsSetup, providers }: Unauthorized): Access {
  // The API does not say which of the two a server without an admin is; the 401's wording does.
  const asksSignIn = /^Sign in\b/i.test(detail);
  if (keySent) return { kind: "key", rejected: true, accounts: !needsSetup || asksSignIn, providers };
  if (!needsSetup) return { kind: "sign-in", providers };
  return asksSignIn ? { kind: "setup" } : { kind: "key", rejected: false, accounts: false };
}

/** Asks the server who this browser is. Never throws: an unreachable server lets the app show its banner. */
export async function checkAccess(apiKey: string | undefined): Promise<Access> {
  try {
    const me = await fetchMe(apiKey);
    return { kind: "ready", user: isLocalUser(me) ? null : me };
  } catch (error) {
    // A server without the account routes has no accounts.
    if (isNotFound(error)) return { kind: "ready", user: null };
    if (!isUnauthorized(error)) return { kind: "ready", user: null, offline: true };
    try {
      const [setup, providers] = await Promise.all([needsSetup(), fetchProviders()]);
      return accessAfter401({ keySent: Boolean(apiKey), detail: errorDetail(error), needsSetup: setup, providers });
    } catch {
      return { kind: "key", rejected: Boolean(apiKey), accounts: false };
    }
  }
}

/**
 * The access state and `recheck`. `recheck({ refused: true })` is for a 401 the app got elsewhere: if
 * `me` still answers, the server wants a key for the rest (an older server without `me`), so the key
 * form shows instead of the same 401 again. While the server is unreachable it asks again every 3 s.
 */
export function useAccess(apiKey: string | undefined): [Access, (options?: { refused?: boolean }) => void] {
  const [access, setAccess] = useState<Access>({ kind: "checking" });
  const [attempt, setAttempt] = useState<{ n: number; refused: boolean }>({ n: 0, refused: false });
  useEffect(() => {
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    void checkAccess(apiKey).then((next) => {
      if (!alive) return;
      if (attempt.refused && next.kind === "ready" && !next.offline)
        setAccess({ kind: "key", rejected: Boolean(apiKey), accounts: false });
      else setAccess(next);
      if (next.kind === "ready" && next.offline)
        timer = setTimeout(() => setAttempt((a) => ({ n: a.n + 1, refused: false })), 3000);
    });
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [apiKey, attempt]);
  const recheck = useCallback(
    (options: { refused?: boolean } = {}) => setAttempt((a) => ({ n: a.n + 1, refused: options.refused ?? false })),
    [],
  );
  return [access, recheck];
}
