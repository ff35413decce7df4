/**
 * The app's pages and the browser URL: `/` (a new chat), `/threads/{id}`, the account pages at
 * `/settings?tab=tokens|password|users` and the scheduled tasks at `/?page=schedules` (paths the
 * server's page fallback already serves, so a reload stays on the page). A tiny history-based router is enough, and it keeps the URL the one
 * source of truth for what is open.
 */
import { useEffect, useState } from "react";

/** The account pages. */
export type AccountTab = "tokens" | "password" | "users";

/** The page the URL names. */
export type Route =
  | { page: "new" }
  | { page: "thread"; threadId: string }
  | { page: "account"; tab: AccountTab }
  | { page: "schedules" }
  | { page: "agents" };

const TABS: readonly AccountTab[] = ["tokens", "password", "users"];

/** The URL of the scheduled tasks page. */
export const SCHEDULES_URL = "/?page=schedules";
/** The URL of the Agents page. */
export const AGENTS_URL = "/?page=agents";

/** Parses a pathname (and its query, for the account and scheduled tasks pages). */
export function parseRoute(pathname: string, search = ""): Route {
  const match = /^\/threads\/([^/]+)\/?$/.exec(pathname);
  if (match) return { page: "thread", threadId: decodeURIComponent(match[1]!) };
  if (/^\/settings\/?$/.test(pathname)) {
    const tab = new URLSearchParams(search).get("tab") as AccountTab | null;
    return { page: "account", tab: tab && TABS.includes(tab) ? tab : "tokens" };
  }
  if (/^\/?$/.test(pathname) && new URLSearchParams(search).get("page") === "schedules") return { page: "schedules" };
  if (/^\/?$/.test(pathname) && new URLSearchParams(search).get("page") === "agents") return { page: "agents" };
  return { page: "new" };
}

/** The URL of an account page. */
export function accountUrl(tab: AccountTab): string {
  return `/settings?tab=${tab}`;
}

/** Goes to a page; `replace` keeps the history entry (used when a new chat gets its id). */
export function navigate(to: string, replace = false): void {
  if (`${window.location.pathname}${window.location.search}` === to) return;
  if (replace) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

/** The current route, updated on back/forward and on {@link navigate}. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.pathname, window.location.search));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.pathname, window.location.search));
    window.addEventListener("popstate", update);
    return () => window.removeEventListener("popstate", update);
  }, []);
  return route;
}
