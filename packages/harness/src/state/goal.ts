/**
 * The thread's goal, as the user gives it: `/goal <text>` sets it, `/goal` shows it, `/goal clear`
 * removes it (the chat CLI; the web app keeps its own copy of the parser). The goal lives in the
 * `goal` channel, so it outlives compaction, and durable context shows it to the model on every call.
 */
import type { GoalState } from "./shapes.js";

/** Longest objective accepted, in characters (DeerFlow's cap). */
export const GOAL_MAX_CHARS = 4000;

/** Words after `/goal` that clear the goal. */
export const GOAL_CLEAR_WORDS: ReadonlySet<string> = new Set(["clear", "reset", "off"]);

/** What a `/goal` command asks for. */
export type GoalCommand = { kind: "show" } | { kind: "clear" } | { kind: "set"; objective: string };

/**
 * Parses the text after `/goal`.
 *
 * @example
 * parseGoalCommand("");               // { kind: "show" }
 * parseGoalCommand(" clear ");        // { kind: "clear" }
 * parseGoalCommand("Ship the beta");  // { kind: "set", objective: "Ship the beta" }
 */
export function parseGoalCommand(args: string): GoalCommand {
  const text = args.trim();
  if (!text) return { kind: "show" };
  if (GOAL_CLEAR_WORDS.has(text.toLowerCase())) return { kind: "clear" };
  return { kind: "set", objective: text };
}

/**
 * A goal value for the `goal` channel: whitespace collapsed, at most {@link GOAL_MAX_CHARS} characters.
 * Throws a `RangeError` saying what to change for an empty or over-long objective.
 *
 * @example
 * await agent.graph.updateState(config, { goal: createGoal("Ship the beta by Friday") });
 */
export function createGoal(objective: string, now: Date = new Date()): GoalState {
  const text = objective.split(/\s+/).filter(Boolean).join(" ");
  if (!text) throw new RangeError("A goal needs some text: /goal <what the conversation should achieve>.");
  if (text.length > GOAL_MAX_CHARS)
    throw new RangeError(`The goal is ${text.length} characters; at most ${GOAL_MAX_CHARS} are kept. Shorten it.`);
  return { objective: text, set_at: now.toISOString() };
}
