/**
 * Stops a tool that keeps failing the same way.
 *
 * A model whose tool fails (an expired key, a server that is down, a path that is not there) often
 * retries it with small changes, and every retry costs a model call while the answer cannot change.
 * Loop detection does not see this when the arguments differ. So this counts, per tool, the run's
 * failures in a row with the same error (the first line, digits ignored; a success of that tool
 * resets it). At the `warnAfter`-th, the result gets a note saying retrying will not help; at the
 * `stopAfter`-th, the note says the tool is stopped, and later calls of it in this run are answered
 * with an error without running it. The counts are read from the run's messages, so nothing is kept
 * between runs or in memory, and a new run (a new user message) starts clean.
 */
import { type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import type { Logger } from "../logger.js";
import { TOOL_PROGRESS_DEFAULTS } from "../config/defaults.js";
import { appendToToolResult } from "./stop-run.js";

/** Options of {@link toolProgressMiddleware}. */
export interface ToolProgressOptions {
  /** Identical failures in a row of one tool from which its results carry a warning. Default 3. */
  warnAfter?: number;
  /** Identical failures in a row at which the tool is stopped for the rest of the run. Default 5. */
  stopAfter?: number;
  /** Receives a message when a tool is stopped. Default: `console.warn`. */
  onWarning?: (message: string) => void;
  /** The harness log (`log_level`). Default: none. */
  logger?: Logger;
}

/** Set on a result that stopped its tool, and on each refusal after it. */
export const TOOL_STOPPED_KEY = "tool_stopped";

/** Whether a tool result is a failure: an error status, or a text that starts with "Error". */
function isFailure(message: ToolMessage): boolean {
  return message.status === "error" || /^\s*Error\b/.test(message.text);
}

/**
 * What identifies an error: its first non-empty line, whitespace collapsed, numbers as `#` (so "after
 * 30.2s" and "after 31.0s" are the same error), at most 200 characters.
 *
 * @example
 * errorKey("Error: HTTP 503 after 30.2 s\nRetry later."); // "Error: HTTP # after # s"
 */
export function errorKey(text: string): string {
  const line = text.split("\n").find((candidate) => candidate.trim() !== "") ?? "";
  return line
    .replace(/\d+(?:\.\d+)?/g, "#")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 200);
}

/** The messages of the current run: those after the last user message (hidden harness messages skipped). */
function currentRun(messages: readonly BaseMessage[]): readonly BaseMessage[] {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (HumanMessage.isInstance(message) && !message.additional_kwargs?.hide_from_ui) return messages.slice(index + 1);
  }
  return messages;
}

/** A tool's standing in the current run. */
export interface FailureStreak {
  /** The {@link errorKey} of its latest failures in a row, or null after a success (or no call). */
  error: string | null;
  /** How many of its latest results in a row failed with that error. */
  count: number;
  /** Whether it was stopped in this run. */
  stopped: boolean;
}

/**
 * How `toolName` has been doing in the current run of `messages`.
 *
 * @example
 * failureStreak([human, fail("lookup", "Error: 503"), fail("lookup", "Error: 503")], "lookup");
 * // → { error: "Error: #", count: 2, stopped: false }
 */
export function failureStreak(messages: readonly BaseMessage[], toolName: string): FailureStreak {
  const streak: FailureStreak = { error: null, count: 0, stopped: false };
  for (const message of currentRun(messages)) {
    if (!ToolMessage.isInstance(message) || message.name !== toolName) continue;
    if (message.additional_kwargs?.[TOOL_STOPPED_KEY]) streak.stopped = true;
    if (!isFailure(message)) {
      streak.error = null;
      streak.count = 0;
      continue;
    }
    const key = errorKey(message.text);
    streak.count = key === streak.error ? streak.count + 1 : 1;
    streak.error = key;
  }
  return streak;
}

/**
 * Warns about, then stops, a tool that fails the same way again and again in one run.
 *
 * @example
 * createAgent({ model, tools, middleware: [toolProgressMiddleware({ warnAfter: 3, stopAfter: 5 })] });
 */
export function toolProgressMiddleware(options: ToolProgressOptions = {}) {
  const warnAfter = options.warnAfter ?? TOOL_PROGRESS_DEFAULTS.warn_after;
  const stopAfter = Math.max(warnAfter, options.stopAfter ?? TOOL_PROGRESS_DEFAULTS.stop_after);
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  return createMiddleware({
    name: "tool-progress",
    wrapToolCall: async (request, handler) => {
      const name = request.toolCall.name;
      const messages = (request.state as { messages?: BaseMessage[] }).messages ?? [];
      const before = failureStreak(messages, name);
      if (before.stopped)
        return new ToolMessage({
          content:
            `Error: ${name} is stopped for the rest of this run: it failed ${stopAfter} times in a row with the same error ` +
            `("${before.error ?? "see above"}"). Do not call it again now; use another tool or approach, or tell the user what failed.`,
          name,
          tool_call_id: request.toolCall.id ?? "",
          status: "error",
          additional_kwargs: { [TOOL_STOPPED_KEY]: true },
        });
      const result = await handler(request);
      if (!ToolMessage.isInstance(result) || !isFailure(result)) return result;
      const key = errorKey(result.text);
      const count = key === before.error ? before.count + 1 : 1;
      if (count >= stopAfter) {
        options.logger?.info(`stopped ${name} for this run after ${count} identical failures`);
        warn(`tool-progress: ${name} failed ${count} times in a row with the same error; it is stopped for this run.`);
        result.additional_kwargs = { ...result.additional_kwargs, [TOOL_STOPPED_KEY]: true };
        return appendToToolResult(
          result,
          `[Tool stopped: ${name} has now failed ${count} times in a row with the same error, so it is stopped for the rest of this run ` +
            `(tool_progress.stop_after = ${stopAfter}). Use another tool or approach, or tell the user what failed.]`,
        );
      }
      if (count < warnAfter) return result;
      options.logger?.info(`${name} failed ${count} times in a row with the same error; warning the model`);
      return appendToToolResult(
        result,
        `[Progress warning: ${name} has failed ${count} times in a row with the same error; retrying it the same way will not help. ` +
          `Change the arguments or the approach. At ${stopAfter} identical failures it is stopped for this run.]`,
      );
    },
  });
}
