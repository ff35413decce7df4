/**
 * How the app reaches the server: the LangGraph API and the gateway routes under `/api` on the page's
 * own origin (the server mounts its API there), with the API key the user entered, if any. Everything
 * goes over HTTP through the official SDK or plain `fetch`; nothing here knows about the server's code.
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

/** An SDK client for the current key. */
export function makeClient(apiKey: string | undefined): Client {
  return new Client({ apiUrl: apiUrl(), apiKey: apiKey ?? null, callerOptions: { maxRetries: 1 } });
}

/** True when an SDK or fetch error is the server saying the key is missing or wrong. */
export function isUnauthorized(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return status === 401 || /HTTP 401\b/.test(String((error as Error | null)?.message ?? ""));
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
  const response = await fetch(`${apiUrl()}${pathname}`, { ...init, headers });
  if (!response.ok) {
    let detail = response.statusText;
    try {
      detail = ((await response.json()) as { detail?: string }).detail ?? detail;
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
