/**
 * Chooses what of a thread the memory updater may learn from: what the user said and what the agent
 * finally answered. Tool calls and tool results are bulky and about the task, not the user; hidden
 * messages (durable-context data, anything marked `hide_from_ui`) were written by the
 * harness, and learning from them would feed the agent's own context back into memory as "facts".
 * Upload listings are stripped too: "the user uploaded report.pdf" is not worth remembering. A turn that
 * was only an upload is dropped with the answer to it: that answer retells the document, and a CV or a
 * report pasted in for a task would otherwise come back as "facts" about the user.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { contentText } from "../messages/content.js";

/** One remembered turn: plain text, ready to be shown to the memory model. */
export interface MemoryTurn {
  role: "user" | "assistant";
  content: string;
}

const INJECTED_BLOCKS = /<(uploaded_files|current_uploads)>[\s\S]*?<\/\1>/g;

function isHidden(message: BaseMessage): boolean {
  const extra = message.additional_kwargs ?? {};
  return extra.hide_from_ui === true || extra.durable_context_data === true;
}

/**
 * User messages (upload blocks removed) and final AI answers (AI messages without tool calls), in order.
 * Tool messages, system messages, hidden messages, turns left empty, and the answers to an upload-only
 * message are dropped.
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
