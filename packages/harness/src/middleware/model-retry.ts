/**
 * Retries a model call that failed for a reason that passes: rate limits (429), server errors (5xx),
 * timeouts and dropped connections. Waits grow exponentially with jitter (so many clients hit by the
 * same outage do not come back in step) and follow the server's `Retry-After` when it sends one.
 * Auth errors, bad requests and context-length errors fail at once: retrying cannot fix them.
 *
 * This is the only retry layer (the clients are built with `maxRetries: 0`), so each wait is announced
 * once, as a custom stream event `llm_retry` that the CLI prints ("rate limited, retrying in 8 s").
 */
import { createMiddleware } from "langchain";
import { type ProviderErrorInfo, classifyProviderError } from "../model/provider-errors.js";
import { timerMs } from "../model/deadline-fetch.js";
import type { Logger } from "../logger.js";
import { LLM_DEFAULTS } from "../config/defaults.js";

/** The custom stream event sent before each retry. */
export interface LlmRetryEvent {
  type: "llm_retry";
  /** The retry about to happen, 1-based. */
  attempt: number;
  /** Retries allowed in all. */
  max_retries: number;
  wait_ms: number;
  reason: ProviderErrorInfo["kind"];
  status?: number;
  model: string;
  /** One line for people, e.g. "rate limited (HTTP 429), retrying in 8 s (retry 1 of 3)". */
  message: string;
}

/** Options of {@link modelRetryMiddleware}. */
export interface ModelRetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. */
  maxRetries: number;
  /** First backoff wait; it doubles on each retry. Default 1000. */
  baseDelayMs?: number;
  /** Longest backoff wait. Default 8000. */
  capDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the call fails. Default 60 000. */
  maxRetryAfterMs?: number;
  /** Names the model in events. */
  modelName: string;
  /** Receives a line per retry (the CLI log). Default: nothing. */
  onWarning?: (message: string) => void;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
  /** Randomness of the jitter, in [0, 1). Default `Math.random`. */
  random?: () => number;
}

const REASON_TEXT: Record<ProviderErrorInfo["kind"], string> = {
  rate_limit: "rate limited",
  server: "server error",
  timeout: "timed out",
  connection: "connection lost",
  context_length: "context too long",
  auth: "not authorized",
  bad_request: "bad request",
  other: "failed",
};

/**
 * The wait before retry `attempt` (1-based): `Retry-After` when given, else an exponential backoff
 * `min(cap, base * 2^(attempt-1))` with jitter in its upper half. Null when the server asks for a wait
 * longer than `maxRetryAfterMs`.
 */
export function retryDelayMs(attempt: number, info: ProviderErrorInfo, options: ModelRetryOptions): number | null {
  if (info.retryAfterMs !== undefined)
    return info.retryAfterMs > (options.maxRetryAfterMs ?? LLM_DEFAULTS.retry_after_max_seconds * 1000)
      ? null
      : Math.ceil(info.retryAfterMs);
  const base = options.baseDelayMs ?? LLM_DEFAULTS.retry_base_delay_ms;
  const ceiling = Math.min(options.capDelayMs ?? LLM_DEFAULTS.retry_cap_delay_ms, base * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (options.random ?? Math.random)() * (ceiling / 2));
}

/** "8 s", "1.5 s", "250 ms". */
function spoken(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.round(ms / 100) / 10;
  return `${seconds} s`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, timerMs(ms));
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });
}

/**
 * Builds the model-retry middleware.
 *
 * @example
 * createAgent({ model, middleware: [modelRetryMiddleware({ maxRetries: 3, modelName: "gpt-4o" })] });
 */
export function modelRetryMiddleware(options: ModelRetryOptions) {
  return createMiddleware({
    name: "model-retry",
    wrapModelCall: async (request, handler) => {
      const runtime = request.runtime as { writer?: (chunk: unknown) => void; signal?: AbortSignal } | undefined;
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await handler(request);
        } catch (error) {
          if (attempt > options.maxRetries || runtime?.signal?.aborted) throw error;
          const info = classifyProviderError(error);
          if (!info.retryable) throw error;
          const wait = retryDelayMs(attempt, info, options);
          if (wait === null) throw error;
          const status = info.status ? ` (HTTP ${info.status})` : "";
          const event: LlmRetryEvent = {
            type: "llm_retry",
            attempt,
            max_retries: options.maxRetries,
            wait_ms: wait,
            reason: info.kind,
            ...(info.status ? { status: info.status } : {}),
            model: options.modelName,
            message: `${REASON_TEXT[info.kind]}${status}, retrying in ${spoken(wait)} (retry ${attempt} of ${options.maxRetries})`,
          };
          try {
            runtime?.writer?.(event);
          } catch {
            // A closed stream must not turn a retry into a failure.
          }
          options.logger?.info(`model "${options.modelName}": ${event.message}`);
          options.onWarning?.(`Model "${options.modelName}": ${event.message}.`);
          await sleep(wait, runtime?.signal);
        }
      }
    },
  });
}
