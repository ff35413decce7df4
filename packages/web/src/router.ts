/**
 * The app's two pages and the browser URL: `/` (a new chat) and `/threads/{id}`. A tiny history-based
 * router is enough for two routes, and it keeps the URL the one source of truth for the open thread.
 */
import { useEffect, useState } from "react";

/** The page the URL names. */
export type Route = { page: "new" } | { page: "thread"; threadId: string };

/** Parses a pathname. */
export function parseRoute(pathname: string): Route {
  const match = /^\/threads\/([^/]+)\/?$/.exec(pathname);
  return match ? { page: "thread", threadId: decodeURIComponent(match[1]!) } : { page: "new" };
}

/** Goes to a page; `replace` keeps the history entry (used when a new chat gets its id). */
export function navigate(to: string, replace = false): void {
  if (window.location.pathname === to) return;
  if (replace) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

/** The current route, updated on back/forward and on {@link navigate}. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.pathname));
    window.addEventListener("popstate", update);
    return () => window.removeEventListener("popstate", update);
  }, []);
  return route;
}
