/**
 * What a search provider is to `web_search`: a name, whether it needs a key, and functions that turn a
 * query into hits. The HTTP call, the address policy and the translation of failures (bad key, rate
 * limit, timeout, garbage) into one line for the model live here once; a provider only builds its
 * request and reads its response shape.
 */
import type { AllowList } from "./address-policy.js";
import { type Resolver, safeFetch, WebRequestError } from "./safe-fetch.js";

/** One web result. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
  /** Publication date as the provider gives it, when it does. */
  date?: string;
}

/** One image result. */
export interface ImageHit {
  title: string;
  imageUrl: string;
  /** The page the image is on. */
  pageUrl?: string;
  thumbnailUrl?: string;
}

/** Everything a provider needs to make its calls. */
export interface ProviderContext {
  apiKey: string | null;
  baseUrl: string;
  timeoutMs: number;
  allowList: AllowList;
  resolve?: Resolver;
  signal?: AbortSignal;
}

/** A request a provider wants made. */
export interface ProviderRequest {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: unknown;
}

/** A search backend. */
export interface SearchProvider {
  /** Shown to the model and in error lines ("Tavily"). */
  label: string;
  /** The environment variable read when `api_key` is null; undefined for providers without keys. */
  keyEnv?: string;
  defaultBaseUrl?: string;
  search(query: string, maxResults: number, context: ProviderContext): Promise<SearchHit[]>;
  images(query: string, maxResults: number, context: ProviderContext): Promise<ImageHit[]>;
}

/** A provider call that failed; `message` is the one line the tool returns. */
export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProviderError";
  }
}

/** Responses from search APIs are small; a larger one is a misconfigured base_url. */
const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

/**
 * Makes one provider call through the address policy and returns the parsed JSON, or throws a
 * {@link ProviderError} whose message says what happened and what to do.
 */
export async function providerJson(
  provider: SearchProvider,
  request: ProviderRequest,
  context: ProviderContext,
): Promise<unknown> {
  let response;
  try {
    response = await safeFetch(request.url, {
      method: request.method,
      headers: {
        accept: "application/json",
        ...(request.body !== undefined ? { "content-type": "application/json" } : {}),
        ...request.headers,
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      timeoutMs: context.timeoutMs,
      maxBytes: MAX_RESPONSE_BYTES,
      maxRedirects: 2,
      allowList: context.allowList,
      resolve: context.resolve,
      signal: context.signal,
    });
  } catch (error) {
    if (error instanceof WebRequestError) {
      const limit =
        error.kind === "timeout" ? ` (limit ${context.timeoutMs / 1000} s; web.search.timeout_seconds)` : "";
      throw new ProviderError(`${provider.label} search failed: ${error.message}${limit}`);
    }
    throw error;
  }
  const keyHint = provider.keyEnv
    ? `web.search.api_key in config.yaml (or ${provider.keyEnv})`
    : "the instance's settings";
  if (response.status === 401 || response.status === 403) {
    const what = provider.keyEnv ? "rejected the API key" : "refused the request";
    const fix = provider.keyEnv
      ? `Check ${keyHint}.`
      : "Enable the JSON format (search.formats: [html, json]) in the SearXNG instance's settings.yml.";
    throw new ProviderError(
      `${provider.label} ${what} (HTTP ${response.status}). ${fix} Continue without web search if it cannot be fixed now.`,
    );
  }
  if (response.status === 429)
    throw new ProviderError(
      `${provider.label} is rate-limiting searches (HTTP 429). Wait before searching again, or continue with what you have.`,
    );
  if (response.status < 200 || response.status >= 300)
    throw new ProviderError(
      `${provider.label} search failed with HTTP ${response.status}. Try again later, or continue with what you have.`,
    );
  if (response.truncated)
    throw new ProviderError(
      `${provider.label} sent an incomplete response (${response.truncated === "size" ? "too large" : "too slow"}). Check web.search.base_url.`,
    );
  try {
    return JSON.parse(response.body.toString("utf8"));
  } catch {
    throw new ProviderError(`${provider.label} answered with something that is not JSON. Check web.search.base_url.`);
  }
}

/**
 * Makes one provider call and returns the array found by following `path` through its JSON answer
 * ([] when any step is absent): the common shape of every provider's search and image calls.
 */
export async function providerList(
  provider: SearchProvider,
  context: ProviderContext,
  request: ProviderRequest,
  ...path: [...string[], string]
): Promise<unknown[]> {
  let value = await providerJson(provider, request, context);
  const last = path.length - 1;
  for (let step = 0; step < last; step++)
    value =
      value !== null && typeof value === "object"
        ? (value as Record<string, unknown>)[path[step] as string]
        : undefined;
  return list(value, path[last] as string);
}

/** A string field of an untyped object, or "" when absent. */
export function field(value: unknown, key: string): string {
  const found = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return typeof found === "string" ? found : "";
}

/** An array field of an untyped object, or [] when absent. */
export function list(value: unknown, key: string): unknown[] {
  const found = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return Array.isArray(found) ? found : [];
}

/**
 * Joins a base URL and a path without doubling or dropping the slash between them, with `query` (when
 * given) as its search parameters.
 */
export function endpoint(baseUrl: string, path: string, query?: Record<string, string>): string {
  const url = `${baseUrl.replace(/\/+$/, "")}${path}`;
  return query === undefined ? url : `${url}?${new URLSearchParams(query)}`;
}
