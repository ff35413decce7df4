/**
 * Structured meta on failed tool results, so the model and clients can tell a failure worth trying
 * again (a timeout, a dropped connection, a 429 or 5xx from a web API) from one that will fail the same
 * way every time (bad arguments, a missing file, a refused path). Without it they would have to parse
 * the error text, which differs per tool.
 *
 * Every error result gets `additional_kwargs.tool_meta = { status: "error", error_type }`; results that
 * succeeded are left as they are.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { classifyProviderError } from "../model/provider-errors.js";

/** Whether trying the same call again later may succeed. */
export type ToolErrorType = "transient" | "permanent";

/** The meta stored under `additional_kwargs.tool_meta` of an error result. */
export interface ToolResultMeta {
  status: "error";
  error_type: ToolErrorType;
}

/** Words of failures that pass: timeouts, network trouble, rate limits, overloaded or failing servers. */
const TRANSIENT_TEXT =
  /time[sd]? ?out|timeout|ETIMEDOUT|ECONNRESET|ECONNREFUSED|EAI_AGAIN|socket hang up|fetch failed|connection (reset|refused|error|closed)|network error|temporarily unavailable|service unavailable|bad gateway|gateway timeout|rate[- _]?limit|too many requests|\b(429|502|503|504)\b|overloaded|try again later/i;

/**
 * `transient` when the failure may pass if the call is repeated later, else `permanent`. An exception is
 * classified like a provider error (status, network code, timeout); a text by its wording.
 *
 * @example
 * classifyToolError(new Error("connect ETIMEDOUT 10.0.0.1:443")); // "transient"
 * classifyToolError('Error: file "notes.md" does not exist'); // "permanent"
 */
export function classifyToolError(failure: unknown): ToolErrorType {
  if (typeof failure !== "string" && classifyProviderError(failure).retryable) return "transient";
  const text = typeof failure === "string" ? failure : failure instanceof Error ? failure.message : "";
  return TRANSIENT_TEXT.test(text) ? "transient" : "permanent";
}

/** `result` with its tool meta set when it is an error result (one with meta already keeps it). */
export function withToolResultMeta(result: ToolMessage, failure: unknown = result.text): ToolMessage {
  if (result.status !== "error" || result.additional_kwargs?.tool_meta) return result;
  const meta: ToolResultMeta = { status: "error", error_type: classifyToolError(failure) };
  result.additional_kwargs = { ...result.additional_kwargs, tool_meta: meta };
  return result;
}
