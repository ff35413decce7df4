/**
 * OpenAI's rule that tool calls and tool results come in unbroken pairs, as a pure check.
 *
 * OpenAI (and DeepSeek, vLLM, most proxies) answer HTTP 400 when an assistant message with `tool_calls`
 * is not followed right away by one `tool` message per call, or when a `tool` message answers no call
 * of the assistant message just before it. A run interrupted between the model and its tools leaves
 * exactly that "dangling" history, so the fake server applies this check in strict mode to catch it.
 */

/** The parts of a chat-completions request message this check reads. */
export interface WireMessage {
  role: string;
  tool_calls?: Array<{ id?: string }>;
  tool_call_id?: string;
}

/** Why OpenAI would reject the messages: `message` is OpenAI's wording; `param` points at the culprit. */
export interface ToolPairingError {
  kind: "unanswered_tool_calls" | "orphan_tool_message";
  message: string;
  param: string | null;
}

/**
 * Returns the error OpenAI would give for these messages, or `undefined` when every tool call is
 * answered by the `tool` messages that immediately follow it.
 */
export function findToolPairingError(messages: readonly WireMessage[]): ToolPairingError | undefined {
  let block: { callIds: Set<string>; pending: Set<string> } | undefined;
  for (const [index, message] of messages.entries()) {
    if (message.role === "tool") {
      if (!block || !block.callIds.has(message.tool_call_id ?? "")) return orphan(index);
      block.pending.delete(message.tool_call_id!);
      continue;
    }
    if (block && block.pending.size > 0) return unanswered(block.pending, index);
    const ids = message.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.id ?? "") : [];
    block = ids.length > 0 ? { callIds: new Set(ids), pending: new Set(ids) } : undefined;
  }
  if (block && block.pending.size > 0) return unanswered(block.pending, null);
  return undefined;
}

function unanswered(pending: Set<string>, nextIndex: number | null): ToolPairingError {
  return {
    kind: "unanswered_tool_calls",
    message:
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each " +
      `'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`,
    param: nextIndex === null ? null : `messages.[${nextIndex}].role`,
  };
}

function orphan(index: number): ToolPairingError {
  return {
    kind: "orphan_tool_message",
    // "preceeding" is OpenAI's spelling; tests that match the real message rely on it.
    message:
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    param: `messages.[${index}].role`,
  };
}
