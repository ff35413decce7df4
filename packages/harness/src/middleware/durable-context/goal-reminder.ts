/**
 * How the user's goal reaches the model: one hidden user-role message, on every call, right after the
 * durable-context data (or the system messages when there is none).
 *
 * Not in the system prompt: the prompt stays byte-identical for the thread, so providers keep caching
 * it, and setting or clearing a goal changes only what follows it. Not inside the data block either:
 * that block's values are data the model must not obey, while the goal is the user's own instruction.
 * The message exists in the request only; the goal itself is read from state, so compaction never
 * loses it.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { escapeData } from "../../messages/text.js";
import type { GoalState } from "../../state/shapes.js";
import { DURABLE_CONTEXT_FLAG } from "./durable-context-render.js";

/** The kwarg that marks the goal message in a request. */
export const GOAL_REMINDER_FLAG = "goal_reminder";

/**
 * The reminder text for `goal`.
 *
 * @example
 * renderGoalReminder({ objective: "Ship the beta", set_at: "2026-01-01T00:00:00.000Z" });
 * // "<thread_goal>\nThe user set this goal for the whole conversation ...\nShip the beta\n</thread_goal>"
 */
export function renderGoalReminder(goal: GoalState): string {
  return [
    "<thread_goal>",
    "The user set this goal for the whole conversation. Keep working toward it across turns; say plainly when it is met or what blocks it.",
    escapeData(String(goal.objective)),
    "</thread_goal>",
  ].join("\n");
}

/** `messages` with the goal message after the leading system and durable-context messages; unchanged without a goal. */
export function projectGoal(messages: readonly BaseMessage[], goal: GoalState | null | undefined): BaseMessage[] {
  if (!goal?.objective) return [...messages];
  const reminder = new HumanMessage({
    content: renderGoalReminder(goal),
    additional_kwargs: { hide_from_ui: true, [GOAL_REMINDER_FLAG]: true },
  });
  const leading = (message: BaseMessage) =>
    message.type === "system" ||
    (message.type === "human" && message.additional_kwargs?.[DURABLE_CONTEXT_FLAG] === true);
  const at = messages.findIndex((message) => !leading(message));
  const out = [...messages];
  out.splice(at === -1 ? out.length : at, 0, reminder);
  return out;
}
