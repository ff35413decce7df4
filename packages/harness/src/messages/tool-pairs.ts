/**
 * Which ToolMessage answers which AI tool call. Dangling-call repair and the summarization cutoff must
 * agree on this, or a cutoff judged safe could still strand a result.
 *
 * Ids are matched in order of occurrence, not through a single id → result map: after compaction or a
 * provider that numbers calls per response ("call_0"), the same id recurs in later turns (deer-flow
 * PR #3143). A result belongs to the nearest earlier call with its id that is still unanswered, and never
 * reaches past the next AI message that issues the same id again.
 */
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";

/** True for AI messages and AI message chunks. */
export function isAIMessage(message: BaseMessage): message is AIMessage {
  return message.type === "ai" || AIMessage.isInstance(message);
}

/** True for ToolMessages and their chunks. */
export function isToolMessage(message: BaseMessage): message is ToolMessage {
  return message.type === "tool" || ToolMessage.isInstance(message);
}

/** Ids of every call an AI message carries, valid and invalid, in order (calls without an id have no result). */
export function toolCallIds(message: AIMessage): string[] {
  return [...(message.tool_calls ?? []), ...(message.invalid_tool_calls ?? [])]
    .map((call) => call.id ?? "")
    .filter(Boolean);
}

/**
 * For each AI message (by index) whose `callIds` is non-empty, the index of the ToolMessage answering each
 * call, or undefined for a call left unanswered. Each ToolMessage answers at most one call.
 */
export function matchToolResults(
  messages: readonly BaseMessage[],
  callIds: (message: AIMessage, index: number) => readonly string[] = toolCallIds,
): Map<number, (number | undefined)[]> {
  const results = new Map<string, number[]>();
  const issuers = new Map<string, number[]>();
  const calls = new Map<number, readonly string[]>();
  messages.forEach((message, index) => {
    if (isToolMessage(message))
      results.set(message.tool_call_id, [...(results.get(message.tool_call_id) ?? []), index]);
    else if (isAIMessage(message)) {
      const ids = callIds(message, index);
      if (ids.length === 0) return;
      calls.set(index, ids);
      for (const id of ids) issuers.set(id, [...(issuers.get(id) ?? []), index]);
    }
  });
  const used = new Set<number>();
  const matches = new Map<number, (number | undefined)[]>();
  for (const [index, ids] of calls) {
    matches.set(
      index,
      ids.map((id) => {
        const limit = issuers.get(id)!.find((issuer) => issuer > index) ?? messages.length;
        const match = (results.get(id) ?? []).find((k) => k > index && k < limit && !used.has(k));
        if (match !== undefined) used.add(match);
        return match;
      }),
    );
  }
  return matches;
}
