/**
 * Copying an AI message with some fields changed. Middlewares that rewrite the model's answer (rename
 * tool-call ids, drop or reorder calls, end a run) must keep its id, or the `messages` reducer appends a
 * second answer instead of replacing the first, and must keep its metadata (usage, finish reason,
 * provider payload), or token accounting and the UI lose it. One helper copies every field once.
 */
import { AIMessage, type AIMessageFields } from "@langchain/core/messages";

/** The fields of an AI message a copy can change. */
export type AIMessageChanges = Pick<
  AIMessageFields,
  "content" | "tool_calls" | "invalid_tool_calls" | "additional_kwargs" | "response_metadata" | "usage_metadata"
>;

/**
 * A new AIMessage with the same id, name, text, tool calls and metadata as `message`, and `changes`
 * applied on top (a key present in `changes` replaces the field whole).
 *
 * @example
 * ```ts
 * const reordered = copyAIMessage(answer, { tool_calls: [...others, ...asks] });
 * ```
 */
export function copyAIMessage(message: AIMessage, changes: AIMessageChanges = {}): AIMessage {
  return new AIMessage({
    id: message.id,
    name: message.name,
    content: message.content,
    tool_calls: message.tool_calls,
    invalid_tool_calls: message.invalid_tool_calls,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    usage_metadata: message.usage_metadata,
    ...changes,
  });
}
