/**
 * How the app reaches the server: the LangGraph API and the gateway routes under `/api` on the page's
 * own origin (the server mounts its API there), with the API key the user entered, if any, or the
 * sign-in cookie. Everything goes over HTTP through the official SDK or plain `fetch`, both through
 * {@link authFetch}, so every write carries the CSRF header a cookie-signed-in server demands.
 */
import { Client } from "@langchain/langgraph-sdk";

/** The API base URL: `/api` on the origin that served the page. */
export function apiUrl(): string {
  return `${window.location.origin}/api`;
}

const KEY_STORAGE = "deerflow.apiKey";

/** The API key saved in this browser, or undefined. */
export function savedApiKey(): string | undefined {
  return localStorage.getItem(KEY_STORAGE) || undefined;
}

/** Saves (or with an empty string, forgets) the API key. */
export function saveApiKey(key: string): void {
  if (key) localStorage.setItem(KEY_STORAGE, key);
  else localStorage.removeItem(KEY_STORAGE);
}

/** The cookie the server sets at sign-in for scripts to echo on writes (double-submit CSRF). */
const CSRF_COOKIE = "csrf_token";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The `csrf_token` cookie's value, or undefined when not signed in with a cookie. */
export function csrfToken(): string | undefined {
  for (const part of document.cookie.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === CSRF_COOKIE) return decodeURIComponent(value.join("="));
  }
  return undefined;
}

/**
 * `fetch` with the page's cookies and, on a write (POST, PUT, PATCH, DELETE), the `X-CSRF-Token`
 * header: a server with accounts refuses a cookie-authenticated write without it (403). The cookie is
 * read on every call, so a sign-in in another tab never leaves a stale value behind.
 */
export function authFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const method = (init.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  const token = SAFE_METHODS.has(method) ? undefined : csrfToken();
  if (!token) return fetch(input, { credentials: "same-origin", ...init });
  const headers = new Headers(init.headers);
  headers.set("x-csrf-token", token);
  return fetch(input, { credentials: "same-origin", ...init, headers });
}

/** An SDK client for the current key; its requests go through {@link authFetch}. */
export function makeClient(apiKey: string | undefined): Client {
  return new Client({
    apiUrl: apiUrl(),
    apiKey: apiKey ?? null,
    // A custom fetch rather than `onRequest`: the SDK skips coalescing duplicate reads when a hook is set.
    callerOptions: { maxRetries: 1, fetch: authFetch },
  });
}

/** True when an SDK or fetch error is the server saying the key is missing or wrong. */
export function isUnauthorized(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return status === 401 || /HTTP 401\b/.test(String((error as Error | null)?.message ?? ""));
}

/** True when the server refused for a limit (a quota or the sign-in throttle). */
export function isTooMany(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return status === 429 || /HTTP 429\b/.test(String((error as Error | null)?.message ?? ""));
}

/**
 * What to tell the person about a failed request: the server's `detail` (e.g. which quota refused a
 * run), without the SDK's `HTTP 429: {"detail": ...}` wrapping.
 *
 * @example
 * errorDetail(new Error('HTTP 429: {"detail":"Daily run limit (20) reached."}')) // "Daily run limit (20) reached."
 */
export function errorDetail(error: unknown): string {
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error);
  const text = message.replace(/^HTTP \d+: /, "");
  try {
    const detail = (JSON.parse(text) as { detail?: unknown }).detail;
    if (typeof detail === "string") return detail;
    if (detail !== undefined) return JSON.stringify(detail);
  } catch {
    // not JSON: the text itself
  }
  return text;
}

/** True when an error is a 404 (e.g. a thread that does not exist). */
export function isNotFound(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return status === 404 || /HTTP 404\b/.test(String((error as Error | null)?.message ?? ""));
}

/** `fetch` under `/api` with the key; throws an error carrying `status` on a non-2xx answer. */
export async function apiFetch(
  pathname: string,
  apiKey: string | undefined,
  init: RequestInit = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (apiKey) headers.set("x-api-key", apiKey);
  const response = await authFetch(`${apiUrl()}${pathname}`, { ...init, headers });
  if (!response.ok) {
    let detail = response.statusText;
    try {
      const body = (await response.json()) as { detail?: unknown };
      if (body.detail !== undefined)
        detail = typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
    } catch {
      // not JSON: keep the status text
    }
    throw Object.assign(new Error(`HTTP ${response.status}: ${detail}`), { status: response.status });
  }
  return response;
}

/** The artifact URL path of a virtual path such as `/mnt/user-data/outputs/a.md`. */
export function artifactPath(threadId: string, virtualPath: string): string {
  const clean = virtualPath.replace(/^\/+/, "").split("/").map(encodeURIComponent).join("/");
  return `/threads/${encodeURIComponent(threadId)}/artifacts/${clean}`;
}
