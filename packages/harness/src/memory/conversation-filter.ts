/**
 * Chooses what of a thread the memory updater may learn from: what the user said and what the agent
 * finally answered. Tool calls and tool results are bulky and about the task, not the user; hidden
 * messages (durable-context data, anything marked `hide_from_ui`) were written by the
 * harness, and learning from them would feed the agent's own context back into memory as "facts".
 * Upload listings are stripped too: "the user uploaded report.pdf" is not worth remembering. A turn that
 * was only an upload is dropped with the answer to it: that answer retells the document, and a CV or a
 * report pasted in for a task would otherwise come back as "facts" about the user. The one hidden
 * message kept is the user's answer to a clarification card: hidden only so the UI shows the card, not a
 * bubble, it is the user's own words.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { contentText } from "../messages/content.js";

/** One remembered turn: plain text, ready to be shown to the memory model. */
export interface MemoryTurn {
  role: "user" | "assistant";
  content: string;
}

const INJECTED_BLOCKS = /<(uploaded_files|current_uploads)>[\s\S]*?<\/\1>/g;

const filled = (value: unknown) => typeof value === "string" && value.trim() !== "";

/**
 * True when `additional_kwargs` carries a complete answer to a clarification card
 * (`human_input_response`, version 1: a source, a request id, a value, and an option id for a chosen
 * option). The UI sends such an answer hidden, but the user wrote or chose it, so it is worth learning
 * from; a partial payload is treated like any other hidden message.
 */
export function isHumanInputResponse(extra: Record<string, unknown> | undefined): boolean {
  const raw = extra?.human_input_response;
  if (!raw || typeof raw !== "object") return false;
  const reply = raw as Record<string, unknown>;
  if (reply.version !== 1 || reply.kind !== "human_input_response") return false;
  if (!filled(reply.source) || !filled(reply.request_id) || !filled(reply.value)) return false;
  return reply.response_kind === "text" || (reply.response_kind === "option" && filled(reply.option_id));
}

function isHidden(message: BaseMessage): boolean {
  const extra = message.additional_kwargs ?? {};
  if (extra.durable_context_data === true) return true;
  return extra.hide_from_ui === true && !(HumanMessage.isInstance(message) && isHumanInputResponse(extra));
}

/**
 * User messages (upload blocks removed) and final AI answers (AI messages without tool calls), in order.
 * Tool messages, system messages, hidden messages (except a well-formed clarification answer), turns
 * left empty, and the answers to an upload-only message are dropped.
 *
 * @example
 * filterConversationForMemory([human("<uploaded_files>a.pdf</uploaded_files>\nSummarise it"), aiWithToolCall, toolResult, ai("Done.")]);
 * // [{ role: "user", content: "Summarise it" }, { role: "assistant", content: "Done." }]
 */
export function filterConversationForMemory(messages: readonly BaseMessage[]): MemoryTurn[] {
  const turns: MemoryTurn[] = [];
  // Set by an upload-only user message; the replies until the user's next words are skipped.
  let answeringUpload = false;
  for (const message of messages) {
    if (isHidden(message)) continue;
    if (HumanMessage.isInstance(message)) {
      const text = contentText(message.content, "\n");
      const content = text.replace(INJECTED_BLOCKS, "").trim();
      if (content) turns.push({ role: "user", content });
      if (content) answeringUpload = false;
      else if (text.trim()) answeringUpload = true;
    } else if (AIMessage.isInstance(message)) {
      if (answeringUpload || (message.tool_calls?.length ?? 0) > 0) continue;
      const content = contentText(message.content, "\n").trim();
      if (content) turns.push({ role: "assistant", content });
    }
  }
  return turns;
}
