/**
 * Prints a thread's whole conversation for `deerflow history`: the archived messages, a visible marker
 * where each compaction happened, then the messages still in the checkpoint.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { isAIMessage, isToolMessage } from "../messages/tool-pairs.js";
import type { HistoryEntry } from "./history-archive.js";

/**
 * The archive's entries followed by the thread's current messages, without the ones already archived
 * (summarization archives the latest user message it keeps, so the order stays right).
 */
export function mergeHistory(
  entries: readonly HistoryEntry[],
  currentMessages: readonly BaseMessage[] = [],
): HistoryEntry[] {
  const archived = new Set(
    entries.flatMap((entry) => (entry.kind === "message" && entry.message.id ? [entry.message.id] : [])),
  );
  let seq = entries.at(-1)?.seq ?? 0;
  const live = currentMessages
    .filter((message) => !message.id || !archived.has(message.id))
    .map((message): HistoryEntry => ({ kind: "message", seq: (seq += 1), message }));
  return [...entries, ...live];
}

function formatMessage(message: BaseMessage): string {
  if (isAIMessage(message)) {
    const calls = (message.tool_calls ?? []).map((call) => `  → ${call.name}(${JSON.stringify(call.args ?? {})})`);
    return [`assistant: ${message.text}`.trimEnd(), ...calls].join("\n");
  }
  if (isToolMessage(message))
    return `tool ${message.name ?? message.tool_call_id}${message.status === "error" ? " (error)" : ""}: ${message.text}`;
  if (message.type === "human") return `user: ${message.text}`;
  return `${message.type}: ${message.text}`;
}

/**
 * Renders entries as plain text, one block per message, with a line such as
 * `──── compacted 12 messages at 2026-01-02T03:04:05Z ────` after each compacted batch.
 *
 * @example
 * console.log(formatHistory(mergeHistory(archive.read(threadId), state.values.messages)));
 */
export function formatHistory(entries: readonly HistoryEntry[], options: { showSummaries?: boolean } = {}): string {
  return entries
    .map((entry) => {
      if (entry.kind === "message") return formatMessage(entry.message);
      const marker = `──── compacted ${entry.messageCount} messages at ${entry.compactedAt} ────`;
      return options.showSummaries ? `${marker}\nsummary: ${entry.summary}` : marker;
    })
    .join("\n\n");
}
