/**
 * Keeps a run alive when a tool throws.
 *
 * langchain's tool node turns a tool's exception into an error ToolMessage only when no middleware has a
 * `wrapToolCall` hook; as soon as one has (sandbox, clarification, tool-call repair all do), the
 * exception propagates and ends the whole run, losing the turn. This middleware wraps every tool call
 * from outside and answers any exception with an error ToolMessage that names the tool and the error,
 * so the model sees what failed and can try something else. Interrupts and aborts (Ctrl-C, a cancelled
 * run) still propagate: they are not the tool's failure.
 *
 * Every error result passing through, caught here or returned by the tool, gets its
 * `tool_meta.error_type` (`transient` or `permanent`, see tool-result-meta.ts).
 */
import { ToolMessage } from "@langchain/core/messages";
import { isGraphBubbleUp } from "@langchain/langgraph";
import { createMiddleware, MiddlewareError, ToolInvocationError } from "langchain";
import type { Logger } from "../logger.js";
import { withToolResultMeta } from "./tool-result-meta.js";

const MAX_ERROR_CHARS = 2000;

/** Options of {@link toolErrorsMiddleware}. */
export interface ToolErrorsOptions {
  /** Receives one line per caught exception (for the harness log). Default: nothing. */
  onError?: (message: string) => void;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/** The innermost error behind langchain's per-middleware `MiddlewareError` wrappers. */
function rootCause(error: unknown): unknown {
  let current = error;
  while (MiddlewareError.isInstance(current) && current.cause !== undefined) current = current.cause;
  return current;
}

/** The text the model receives for a tool that threw. */
export function describeToolError(toolName: string, error: unknown): string {
  if (ToolInvocationError.isInstance(error)) return error.message;
  const raw =
    error instanceof Error
      ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}`
      : typeof error === "object" && error !== null
        ? safeJson(error)
        : String(error);
  const text = raw.length > MAX_ERROR_CHARS ? `${raw.slice(0, MAX_ERROR_CHARS)}... (${raw.length} chars)` : raw;
  return `Error: tool "${toolName}" failed: ${text}\nThe tool did not complete. Check its arguments, try another approach, or tell the user what failed.`;
}

function safeJson(value: object): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Chain slot 3b: the outermost tool wrapper below the sandbox. Turns every exception of a tool (or of
 * an inner tool wrapper) into an error ToolMessage; the run goes on.
 *
 * @example
 * createAgent({ model, tools, middleware: [toolErrorsMiddleware(), ...] });
 */
export function toolErrorsMiddleware(options: ToolErrorsOptions = {}) {
  return createMiddleware({
    name: "tool-errors",
    wrapToolCall: async (request, handler) => {
      try {
        const result = await handler(request);
        return ToolMessage.isInstance(result) ? withToolResultMeta(result) : result;
      } catch (error) {
        if (isGraphBubbleUp(error) || isGraphBubbleUp(rootCause(error))) throw error;
        if (request.runtime.signal?.aborted) throw error;
        const cause = rootCause(error);
        const name = request.toolCall.name;
        const content = describeToolError(name, cause);
        options.logger?.warn(`tool "${name}" threw; answered with an error result: ${content.split("\n")[0]}`);
        options.onError?.(
          `tool-errors: tool "${name}" threw; answered with an error result: ${content.split("\n")[0]}`,
        );
        return withToolResultMeta(
          new ToolMessage({ content, tool_call_id: request.toolCall.id ?? "", name, status: "error" }),
          cause,
        );
      }
    },
  });
}
