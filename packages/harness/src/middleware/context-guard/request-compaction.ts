/**
 * The harder compaction used after a provider said a request does not fit its window: tool results
 * cut much further (the kept tail's included) and, when that is still too much, the oldest messages left
 * out of the request. The thread itself is not changed; only this request shrinks.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { isToolMessage } from "../../messages/tool-pairs.js";
import { type ToolResultLimits, boundToolResults } from "./tool-result-budget.js";

/** Each tool result is cut to at most this in a hard compaction. */
export const HARD_RESULT_CHARS = 2000;

/** The note that stands for the messages left out. */
export const OMITTED_NOTE =
  "[Earlier messages of this conversation were left out of this request to fit the model's context window. They are still saved in the thread.]";

/** Characters a message adds to a request (its text and tool-call arguments). */
export function messageChars(message: BaseMessage): number {
  const content = typeof message.content === "string" ? message.content.length : JSON.stringify(message.content).length;
  const calls = (message as { tool_calls?: unknown[] }).tool_calls;
  return content + (calls?.length ? JSON.stringify(calls).length : 0);
}

/** Total characters of a list of messages. */
export function requestChars(messages: readonly BaseMessage[]): number {
  return messages.reduce((sum, message) => sum + messageChars(message), 0);
}

/**
 * Shrinks `messages` toward `targetChars`: tool results to at most {@link HARD_RESULT_CHARS} each and a
 * quarter of the usual request budget, then, if still too large, drops the oldest messages. Kept always:
 * injected context at the front (`hide_from_ui`, e.g. the durable-context block), the latest user
 * message, and the newest message. The kept part never starts with a tool result whose call was dropped.
 */
export function compactRequest(
  messages: readonly BaseMessage[],
  targetChars: number,
  limits: ToolResultLimits,
): { messages: BaseMessage[]; dropped: number } {
  const bounded = boundToolResults(messages, {
    perResultChars: Math.min(limits.perResultChars, HARD_RESULT_CHARS),
    perRequestChars: Math.max(
      HARD_RESULT_CHARS,
      Math.min(Math.floor(limits.perRequestChars / 4), Math.floor(targetChars / 2)),
    ),
  }).messages;
  if (requestChars(bounded) <= targetChars) return { messages: bounded, dropped: 0 };

  let pinned = 0;
  while (pinned < bounded.length - 1 && bounded[pinned]!.additional_kwargs?.hide_from_ui) pinned += 1;
  const latestUser = findLatestUser(bounded, pinned);
  const fixed =
    requestChars(bounded.slice(0, pinned)) +
    (latestUser >= 0 ? messageChars(bounded[latestUser]!) : 0) +
    OMITTED_NOTE.length;

  let start = bounded.length - 1;
  let used = fixed + messageChars(bounded[start]!);
  while (start - 1 >= pinned && used + messageChars(bounded[start - 1]!) <= targetChars) {
    start -= 1;
    used += messageChars(bounded[start]!);
  }
  while (start < bounded.length - 1 && isToolMessage(bounded[start]!)) start += 1;
  if (start <= pinned) return { messages: bounded, dropped: 0 };

  const head = bounded.slice(0, pinned);
  const userKept = latestUser >= start || latestUser < 0 ? [] : [bounded[latestUser]!];
  const dropped = start - pinned - userKept.length;
  const note = new HumanMessage({ content: OMITTED_NOTE, additional_kwargs: { hide_from_ui: true } });
  return { messages: [...head, note, ...userKept, ...bounded.slice(start)], dropped };
}

function findLatestUser(messages: readonly BaseMessage[], from: number): number {
  for (let index = messages.length - 1; index >= from; index -= 1) {
    if (messages[index]!.type === "human" && !messages[index]!.additional_kwargs?.hide_from_ui) return index;
  }
  return -1;
}
