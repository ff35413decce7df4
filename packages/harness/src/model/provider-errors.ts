/**
 * Sorts a provider error into what to do about it: retry (rate limits, 5xx, timeouts, dropped
 * connections), compact (the request no longer fits the window), or give up (auth, bad request).
 *
 * Each SDK shapes errors its own way (OpenAI and Anthropic put `status` and `headers` on the error,
 * langchain adds `lc_error_code`, Ollama and vLLM only have words), so the checks read all of them and
 * walk the `cause` chain.
 */
import { ModelResponseError, ModelTimeoutError } from "./deadline-fetch.js";

/** What kind of failure a model call had. */
export type ProviderErrorKind =
  | "rate_limit"
  | "server"
  | "timeout"
  | "connection"
  | "context_length"
  | "auth"
  | "bad_request"
  | "other";

/** A classified error. `retryAfterMs` comes from `Retry-After` / `retry-after-ms` when the server sent one. */
export interface ProviderErrorInfo {
  kind: ProviderErrorKind;
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
}

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
]);
const RETRY_STATUSES = new Set([408, 409, 425, 429]);

/**
 * Words providers use when a request does not fit the model's window: OpenAI ("maximum context length",
 * `context_length_exceeded`), Anthropic ("prompt is too long", "exceed context limit"), vLLM ("is longer
 * than the model's context length", "maximum model length"), Ollama / llama.cpp ("exceeds the context
 * size", "context length exceeded"), and generic gateways ("too many tokens", "context window").
 */
const CONTEXT_LENGTH_PATTERNS = [
  /context[_ ]length[_ ]exceeded/i,
  /maximum context length/i,
  /prompt is too long/i,
  /exceeds? (the )?(available |model'?s? )?(context|max(imum)? model) (limit|length|size|window)/i,
  /exceed context limit/i,
  /longer than the (model'?s? )?(context length|maximum model length)/i,
  /maximum model length/i,
  /context (window|size) (is )?(exceeded|too small)/i,
  /input (is )?too long/i,
  /too many (input )?tokens/i,
  /reduce the length of the (messages|prompt|input)/i,
];

/** True when an error says the request does not fit the model's context window. */
export function isContextLengthError(error: unknown): boolean {
  for (const current of causeChain(error)) {
    const record = current as Record<string, unknown>;
    if (
      record.code === "context_length_exceeded" ||
      (record.error as Record<string, unknown> | undefined)?.code === "context_length_exceeded"
    )
      return true;
    const message = typeof record.message === "string" ? record.message : "";
    if (CONTEXT_LENGTH_PATTERNS.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

/** Classifies a model-call error. */
export function classifyProviderError(error: unknown): ProviderErrorInfo {
  if (isContextLengthError(error)) return { kind: "context_length", retryable: false, status: findStatus(error) };
  const chain = causeChain(error);
  if (chain.some((e) => e instanceof ModelResponseError)) return { kind: "other", retryable: false, status: 200 };
  if (chain.some((e) => e instanceof ModelTimeoutError)) return { kind: "timeout", retryable: true };
  const status = findStatus(error);
  const retryAfterMs = findRetryAfterMs(error);
  if (status !== undefined) {
    if (status === 401 || status === 403) return { kind: "auth", retryable: false, status };
    if (status === 429) return { kind: "rate_limit", retryable: !isQuotaError(error), status, retryAfterMs };
    if (status >= 500 || RETRY_STATUSES.has(status))
      return { kind: status >= 500 ? "server" : "rate_limit", retryable: true, status, retryAfterMs };
    return { kind: "bad_request", retryable: false, status };
  }
  const streamed = STREAM_ERROR_TYPES[findErrorType(error) ?? ""];
  if (streamed) return { ...streamed, retryable: true };
  for (const current of chain) {
    const record = current as Record<string, unknown>;
    const name = String(record.name ?? "");
    const message = String(record.message ?? "");
    if (/Timeout/i.test(name) || /timed? ?out/i.test(message)) return { kind: "timeout", retryable: true };
    if (
      (typeof record.code === "string" && NETWORK_CODES.has(record.code)) ||
      /APIConnectionError/.test(name) ||
      /socket hang up|fetch failed|Connection error|ECONNRESET|other side closed|terminated/i.test(message)
    ) {
      return { kind: "connection", retryable: true };
    }
  }
  return { kind: "other", retryable: false };
}

/**
 * Error types a provider sends as an event after a 200 stream began, so no HTTP status says what
 * happened: Anthropic's `overloaded_error`, `api_error` and `rate_limit_error` events, OpenAI's
 * `{"error": {"type": "server_error"}}` line. They are as transient as the statuses they stand for.
 */
const STREAM_ERROR_TYPES: Record<string, { kind: ProviderErrorKind; status: number }> = {
  overloaded_error: { kind: "server", status: 529 },
  api_error: { kind: "server", status: 500 },
  server_error: { kind: "server", status: 500 },
  rate_limit_error: { kind: "rate_limit", status: 429 },
};

/** The provider's error type (`error.type`, or Anthropic's `error.error.type`) anywhere in the chain. */
function findErrorType(error: unknown): string | undefined {
  for (const current of causeChain(error)) {
    const body = (current as { error?: { type?: unknown; error?: { type?: unknown } } }).error;
    const type = body?.error?.type ?? body?.type;
    if (typeof type === "string" && type !== "error") return type;
  }
  return undefined;
}

/** Out of credit rather than too fast: waiting will not help (OpenAI's `insufficient_quota`). */
function isQuotaError(error: unknown): boolean {
  return causeChain(error).some((current) => {
    const record = current as Record<string, unknown>;
    return (
      record.code === "insufficient_quota" ||
      /insufficient_quota|exceeded your current quota|billing/i.test(String(record.message ?? ""))
    );
  });
}

function findStatus(error: unknown): number | undefined {
  for (const current of causeChain(error)) {
    const record = current as Record<string, unknown>;
    for (const key of ["status", "statusCode", "status_code"]) {
      if (typeof record[key] === "number") return record[key] as number;
    }
    const response = record.response as Record<string, unknown> | undefined;
    if (response && typeof response.status === "number") return response.status;
  }
  return undefined;
}

/** Milliseconds the server asked us to wait (`retry-after-ms`, `retry-after` seconds or date), if any. */
export function findRetryAfterMs(error: unknown, now: number = Date.now()): number | undefined {
  for (const current of causeChain(error)) {
    const headers =
      (current as { headers?: unknown }).headers ?? (current as { response?: { headers?: unknown } }).response?.headers;
    const get = (name: string): string | null | undefined => {
      if (!headers) return undefined;
      if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name);
      const value = (headers as Record<string, unknown>)[name];
      return typeof value === "string" ? value : undefined;
    };
    const ms = Number(get("retry-after-ms"));
    if (get("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
    const after = get("retry-after");
    if (!after) continue;
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  return undefined;
}

function causeChain(error: unknown): object[] {
  const chain: object[] = [];
  for (
    let current: unknown = error;
    current && typeof current === "object" && chain.length < 16;
    current = (current as { cause?: unknown }).cause
  ) {
    chain.push(current);
  }
  return chain;
}

/** What a context-length error says about sizes, in tokens, when it says anything. */
export interface ContextLimit {
  /** The model's window. */
  window?: number;
  /** The size of the refused request. */
  requested?: number;
}

/**
 * Reads the window and the request size from a context-length error: OpenAI / vLLM ("maximum context
 * length is 8192 tokens. However, your messages resulted in 9000 tokens"), Anthropic ("prompt is too
 * long: 210000 tokens > 200000 maximum"), llama.cpp ("the request exceeds the available context size ...
 * n_ctx 4096, n_prompt_tokens 5000").
 */
export function contextLimitFromError(error: unknown): ContextLimit {
  const text = causeChain(error)
    .map((e) => String((e as { message?: unknown }).message ?? ""))
    .join(" ");
  const number = (pattern: RegExp) => {
    const match = pattern.exec(text);
    return match ? Number(match[1]) : undefined;
  };
  const anthropic = /(\d+) tokens? > (\d+)/.exec(text);
  if (anthropic) return { requested: Number(anthropic[1]), window: Number(anthropic[2]) };
  return {
    window: number(/(?:maximum context length|context length|maximum model length|n_ctx(?:_slot)?)\D{0,20}?(\d{3,})/i),
    requested: number(/(?:resulted in|requested|prompt \(length|n_prompt_tokens)\D{0,20}?(\d{3,})/i),
  };
}
