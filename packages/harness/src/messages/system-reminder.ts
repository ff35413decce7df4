/**
 * Reminders the harness puts into `messages` for the model (an open-todo nudge, a goal to keep pursuing)
 * carry one flag, so compaction can tell them from conversation: summarized away, the reminder would
 * never reach the model it was written for, and the summary would retell it as if the user had said it.
 * DeerFlow keeps its dynamic-context reminders (date and memory) the same way; ours live in the system
 * prompt, so only the flagged messages need keeping.
 */
import type { BaseMessage } from "@langchain/core/messages";

/** `additional_kwargs` key that marks a hidden message as a reminder compaction must keep. */
export const SYSTEM_REMINDER_FLAG = "system_reminder";

/**
 * Whether `message` is a reminder compaction keeps: flagged with {@link SYSTEM_REMINDER_FLAG}, or with
 * DeerFlow's `dynamic_context_reminder` (threads written by DeerFlow's own middlewares).
 *
 * @example
 * isSystemReminder(new HumanMessage({ content: "<system_reminder>…", additional_kwargs: { hide_from_ui: true, system_reminder: true } })); // true
 * isSystemReminder(new HumanMessage("remind me to call Bob")); // false
 */
export function isSystemReminder(message: BaseMessage): boolean {
  const extra = message.additional_kwargs ?? {};
  return extra[SYSTEM_REMINDER_FLAG] === true || extra.dynamic_context_reminder === true;
}
