/**
 * Conversations the user referenced. A client (the web app's composer) sends up to three of the
 * user's earlier threads with a message, in `additional_kwargs.conversation_refs` as
 * `[{ thread_id, title? }]`. The model would never see kwargs, so each request gets a hidden message
 * right before every user message that carries references, naming them and pointing at
 * `read_conversation`, which reads them (and checks they are the user's). Nothing is written to
 * `messages`; the references stay on the user's message, so later turns still know them.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { collapseWhitespace, escapeData } from "../messages/text.js";
import { isValidThreadId } from "../sandbox/virtual-paths.js";
import { MAX_CONVERSATIONS_PER_REQUEST } from "../tools/read-conversation.js";

/** The kwarg of a user message that lists the conversations it references. */
export const CONVERSATION_REFS_KWARG = "conversation_refs";

/** One referenced conversation. */
export interface ConversationRef {
  thread_id: string;
  title?: string;
}

/** The valid references of `message` (ids checked, at most three, duplicates dropped). */
export function conversationRefs(message: BaseMessage): ConversationRef[] {
  const raw = message.additional_kwargs?.[CONVERSATION_REFS_KWARG];
  if (!Array.isArray(raw)) return [];
  const seen = new Map<string, ConversationRef>();
  for (const entry of raw as unknown[]) {
    const ref = entry as Partial<ConversationRef> | null;
    if (!ref || !isValidThreadId(ref.thread_id) || seen.has(ref.thread_id)) continue;
    seen.set(ref.thread_id, {
      thread_id: ref.thread_id,
      ...(typeof ref.title === "string" ? { title: ref.title } : {}),
    });
  }
  return [...seen.values()].slice(0, MAX_CONVERSATIONS_PER_REQUEST);
}

/**
 * The hidden block naming `refs`.
 *
 * @example
 * renderConversationRefs([{ thread_id: "t-1", title: "Pricing" }]);
 * // "<referenced_conversations>\n...\n- t-1: Pricing\n</referenced_conversations>"
 */
export function renderConversationRefs(refs: readonly ConversationRef[]): string {
  return [
    "<referenced_conversations>",
    "With the next message the user referenced these earlier conversations of theirs. Read the ones you need with read_conversation (by id) before answering.",
    ...refs.map((ref) => `- ${ref.thread_id}${ref.title ? `: ${escapeData(collapseWhitespace(ref.title))}` : ""}`),
    "</referenced_conversations>",
  ].join("\n");
}

/** `messages` with a reference block before each user message that carries references. */
export function projectConversationRefs(messages: readonly BaseMessage[]): BaseMessage[] {
  return messages.flatMap((message) => {
    const refs = HumanMessage.isInstance(message) ? conversationRefs(message) : [];
    if (refs.length === 0) return [message];
    const block = new HumanMessage({
      content: renderConversationRefs(refs),
      additional_kwargs: { hide_from_ui: true },
    });
    return [block, message];
  });
}

/**
 * Builds the conversation-references middleware.
 *
 * @example
 * conversationRefsMiddleware();
 */
export function conversationRefsMiddleware() {
  return createMiddleware({
    name: "conversation-refs",
    wrapModelCall: (request, handler) => handler({ ...request, messages: projectConversationRefs(request.messages) }),
  });
}
