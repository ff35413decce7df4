/**
 * Keeps a run alive when the model sends a tool call whose arguments are not valid JSON.
 *
 * Providers report such calls as `invalid_tool_calls`, which the agent loop does not execute: a
 * response holding only invalid calls would end the run with an empty answer. This middleware turns
 * each invalid call into a real call carrying a marker, and answers it with an error ToolMessage naming
 * the problem, so the model sees what went wrong and can send the call again. Unknown tool names and
 * arguments that fail a tool's schema are already answered with error ToolMessages by the tool node.
 */
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { copyAIMessage } from "../messages/ai-message.js";
import type { Logger } from "../logger.js";

const MARKER = "__deerflow_invalid_arguments";
const MAX_ECHO = 500;

/** An invalid tool call as providers report it. */
interface InvalidToolCall {
  id?: string;
  name?: string;
  args?: string;
  error?: string;
}

/**
 * Moves `invalid_tool_calls` into `tool_calls` with a marker argument. Returns null when the message
 * has no invalid calls.
 */
export function repairInvalidToolCalls(message: AIMessage, makeId: (index: number) => string): AIMessage | null {
  const invalid = (message.invalid_tool_calls ?? []) as InvalidToolCall[];
  if (invalid.length === 0) return null;
  const repaired = invalid.map((call, index) => ({
    id: call.id || makeId(index),
    name: call.name || "unknown_tool",
    args: { [MARKER]: describeInvalidCall(call) },
    type: "tool_call" as const,
  }));
  return copyAIMessage(message, { tool_calls: [...(message.tool_calls ?? []), ...repaired], invalid_tool_calls: [] });
}

/** The error text the model receives for an invalid call. */
export function describeInvalidCall(call: InvalidToolCall): string {
  const raw = String(call.args ?? "");
  const echo = raw.length > MAX_ECHO ? `${raw.slice(0, MAX_ECHO)}... (${raw.length} chars)` : raw;
  const name = call.name || "(no name)";
  const reason = call.error ? ` (${call.error})` : "";
  return `Error: the arguments of your call to tool "${name}" are not valid JSON${reason}: ${echo}\nSend the call again with a single valid JSON object as arguments; split very large content into several calls.`;
}

/** Options of {@link toolCallRepairMiddleware}. */
export interface ToolCallRepairOptions {
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/** Answers repaired calls with their error text instead of running the tool. */
export function toolCallRepairMiddleware(options: ToolCallRepairOptions = {}) {
  return createMiddleware({
    name: "tool-call-repair",
    afterModel: (state) => {
      const last = state.messages.at(-1);
      if (!last || !AIMessage.isInstance(last)) return undefined;
      const repaired = repairInvalidToolCalls(last, (index) => `invalid_call_${last.id ?? "x"}_${index}`);
      return repaired ? { messages: [repaired] } : undefined;
    },
    wrapToolCall: async (request, handler) => {
      const marker = (request.toolCall.args as Record<string, unknown> | undefined)?.[MARKER];
      if (typeof marker !== "string") return handler(request);
      options.logger?.info(
        `answered an invalid call to "${request.toolCall.name}" with an error result (arguments were not valid JSON)`,
      );
      return new ToolMessage({
        content: marker,
        tool_call_id: request.toolCall.id ?? "",
        name: request.toolCall.name,
        status: "error",
      });
    },
  });
}
