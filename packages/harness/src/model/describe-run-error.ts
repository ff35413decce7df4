/**
 * Turns an error that stopped a run into one line a user can act on. Provider SDKs throw long,
 * nested errors (status, body, retries, stack); what matters is which model and endpoint failed, why,
 * and that the thread is intact and can be retried.
 */
import type { ModelEntry } from "../config/schema.js";
import { HarnessError, ModelError } from "../errors.js";

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "ETIMEDOUT", "EAI_AGAIN", "EHOSTUNREACH"]);

/** Wraps a run failure in a `ModelError` (model or endpoint trouble) or a `HarnessError`. */
export function describeRunError(error: unknown, entry: ModelEntry, threadId: string): HarnessError {
  // langchain wraps an error once per middleware it passes through (MiddlewareError), so look inside.
  const own = findHarnessError(error);
  if (own) return own;
  const retry = `The thread's messages are kept; retry with: deerflow run --thread ${threadId}`;
  const status = findNumber(error, "status");
  const code = findString(error, "code");
  const endpoint = entry.base_url ?? entry.api_base ?? defaultEndpoint(entry.use);
  const where = `Model "${entry.name}"${endpoint ? ` at ${endpoint}` : ""}`;
  const detail = firstLine(error);
  if (status !== undefined) {
    return new ModelError(`${where} answered HTTP ${status}${hint(status)}: ${detail}. ${retry}`, { cause: error });
  }
  if ((code && NETWORK_CODES.has(code)) || /fetch failed|Connection error|ECONNREFUSED|network/i.test(detail)) {
    return new ModelError(
      `${where} is unreachable (${code ?? detail}). Check base_url and that the server is running. ${retry}`,
      { cause: error },
    );
  }
  return new HarnessError("model_unavailable", `The run failed: ${detail}. ${retry}`, { cause: error });
}

function hint(status: number): string {
  if (status === 401 || status === 403) return " (check api_key)";
  if (status === 404) return " (check model and base_url)";
  if (status === 429) return " (rate limited or out of quota)";
  if (status >= 500) return " (server error)";
  return "";
}

function defaultEndpoint(use: ModelEntry["use"]): string | undefined {
  if (use === "openai") return "https://api.openai.com/v1";
  if (use === "anthropic") return "https://api.anthropic.com";
  if (use === "ollama") return "http://127.0.0.1:11434";
  return undefined;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/** How deep the cause chain is searched: one level per wrapping middleware, and then the SDK's own. */
const MAX_DEPTH = 16;

function findHarnessError(error: unknown): HarnessError | undefined {
  for (
    let current: unknown = error, depth = 0;
    current && depth < MAX_DEPTH;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    if (current instanceof HarnessError) return current;
  }
  return undefined;
}

function findNumber(error: unknown, key: string): number | undefined {
  for (
    let current: unknown = error, depth = 0;
    current && depth < MAX_DEPTH;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    const value = (current as Record<string, unknown>)[key];
    if (typeof value === "number") return value;
  }
  return undefined;
}

function findString(error: unknown, key: string): string | undefined {
  for (
    let current: unknown = error, depth = 0;
    current && depth < MAX_DEPTH;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    const value = (current as Record<string, unknown>)[key];
    if (typeof value === "string") return value;
  }
  return undefined;
}
