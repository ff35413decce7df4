/**
 * Bounds the tool results a model request carries: each to a per-result size and all of them together
 * to a per-request size, keeping each result's head and tail around a marker.
 *
 * A turn with several large tool results (a few file reads, a verbose build log) can outgrow the
 * model's window in one step, before summarization ever gets a chance, and the same results would then
 * sit in the kept tail of every later request. Only the request is cut: the checkpoint and the history
 * keep the full text.
 */
import { type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { isToolMessage } from "../../messages/tool-pairs.js";

/** Limits in characters. */
export interface ToolResultLimits {
  /** Most characters of one tool result. */
  perResultChars: number;
  /** Most characters of all tool results of one request together. */
  perRequestChars: number;
}

/** No result is cut below this, whatever the request budget says. */
export const MIN_RESULT_CHARS = 400;

/** The marker that replaces the middle of a cut result. */
export function omissionMarker(omitted: number): string {
  return `\n\n[... ${omitted} characters of this tool result left out to fit the model's context window; the full output is kept in the thread ...]\n\n`;
}

/** Cuts `text` to about `max` characters, keeping its head and tail (never splitting a surrogate pair). */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  let head = Math.ceil(max / 2);
  let tail = text.length - Math.floor(max / 2);
  if (isLowSurrogate(text.charCodeAt(head))) head -= 1;
  if (isLowSurrogate(text.charCodeAt(tail))) tail += 1;
  return `${text.slice(0, head)}${omissionMarker(tail - head)}${text.slice(tail)}`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The text of a tool result, or null when it holds more than text (images stay as they are). */
function resultText(message: ToolMessage): string | null {
  if (typeof message.content === "string") return message.content;
  if (message.content.every((block) => block.type === "text"))
    return message.content.map((block) => (block as { text?: string }).text ?? "").join("");
  return null;
}

/**
 * The largest per-result size `c` such that all results cut to `c` fit `budget` (water filling: small
 * results stay whole, the large ones share what is left).
 */
export function fairShare(lengths: readonly number[], budget: number): number {
  const sorted = [...lengths].sort((a, b) => a - b);
  let left = budget;
  for (let index = 0; index < sorted.length; index += 1) {
    const share = Math.floor(left / (sorted.length - index));
    if (sorted[index]! > share) return share;
    left -= sorted[index]!;
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * Returns `messages` with every tool result cut to the limits (the same array when nothing was cut),
 * and how many results were cut.
 *
 * @example
 * const { messages } = boundToolResults(request.messages, { perResultChars: 20_000, perRequestChars: 100_000 });
 */
export function boundToolResults(
  messages: readonly BaseMessage[],
  limits: ToolResultLimits,
): { messages: BaseMessage[]; cut: number } {
  const texts = messages.map((message) => (isToolMessage(message) ? resultText(message) : null));
  const lengths = texts.flatMap((text) => (text === null ? [] : [Math.min(text.length, limits.perResultChars)]));
  const cap = Math.max(MIN_RESULT_CHARS, Math.min(limits.perResultChars, fairShare(lengths, limits.perRequestChars)));
  let cut = 0;
  const bounded = messages.map((message, index) => {
    const text = texts[index];
    if (text === null || text === undefined || text.length <= cap) return message;
    cut += 1;
    const tool = message as ToolMessage;
    return new ToolMessage({
      content: cutMiddle(text, cap),
      tool_call_id: tool.tool_call_id,
      name: tool.name,
      status: tool.status,
      id: tool.id,
      artifact: tool.artifact,
      additional_kwargs: tool.additional_kwargs,
      response_metadata: tool.response_metadata,
    });
  });
  return { messages: cut === 0 ? [...messages] : bounded, cut };
}
