/**
 * Ends a run from `afterModel` by taking the tool calls out of the model's response.
 *
 * langchain's loop ends when the last AI message has no tool calls, and `afterAgent` hooks (title,
 * memory) still run; a `jumpTo: "end"` would be less clean (design §4.2). The guard middlewares (loop
 * detection, token budget) use this to stop: the response keeps its id and text, loses every tool call
 * (structured, invalid and the raw provider payload) and gains a note saying why the run stopped.
 */
import type { AIMessage, ToolMessage } from "@langchain/core/messages";
import { copyAIMessage } from "../messages/ai-message.js";

/** Why a guard ended the run; stored in the response's `additional_kwargs.stop_reason`. */
export type StopReason = "loop_capped" | "token_capped" | "length_capped" | "safety_stopped" | "empty_answer";

/**
 * A copy of `message` (same id) with no tool calls, `note` appended to its text and `stop_reason` set,
 * so later hooks (the todo completion reminder) know the run was ended on purpose.
 */
export function stopWithNote(message: AIMessage, note: string, reason: StopReason): AIMessage {
  const content = Array.isArray(message.content)
    ? [
        ...message.content.filter((block) => (block as { type?: string }).type !== "tool_use"),
        { type: "text" as const, text: note },
      ]
    : message.content
      ? `${message.content}\n\n${note}`
      : note;
  const { tool_calls: _raw, ...additional } = message.additional_kwargs ?? {};
  return copyAIMessage(message, {
    content: content as AIMessage["content"],
    tool_calls: [],
    invalid_tool_calls: [],
    additional_kwargs: { ...additional, stop_reason: reason },
    response_metadata: { ...message.response_metadata, finish_reason: "stop" },
  });
}

/** `result` with `note` appended to its text (string content, or a text block for list content). */
export function appendToToolResult(result: ToolMessage, note: string): ToolMessage {
  const content = Array.isArray(result.content)
    ? [...result.content, { type: "text", text: note }]
    : `${result.content}\n\n${note}`;
  result.content = content as ToolMessage["content"];
  return result;
}
