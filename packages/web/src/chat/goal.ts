/**
 * `/goal` in the composer: the same three commands as `deerflow chat` (the harness's `state/goal.ts`
 * holds the original; the web app does not import the harness). `/goal <text>` sets the thread's
 * goal, `/goal` shows it, `/goal clear` (or reset, off) removes it.
 */
import { t } from "../i18n";

/** The thread's goal as the state holds it. */
export interface Goal {
  objective: string;
  set_at: string;
}

/** What a `/goal` line asks for. */
export type GoalCommand = { kind: "show" } | { kind: "clear" } | { kind: "set"; objective: string };

/** Longest objective the harness keeps. */
export const GOAL_MAX_CHARS = 4000;
const CLEAR_WORDS = new Set(["clear", "reset", "off"]);

/** The command when `text` is a `/goal` line, else undefined. */
export function goalCommandOf(text: string): GoalCommand | undefined {
  const match = /^\/goal(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const args = (match[1] ?? "").trim();
  if (!args) return { kind: "show" };
  if (CLEAR_WORDS.has(args.toLowerCase())) return { kind: "clear" };
  return { kind: "set", objective: args };
}

/** The goal to store for `objective`, or why it cannot be one. */
export function newGoal(objective: string, now = new Date()): Goal | { error: string } {
  const text = objective.split(/\s+/).filter(Boolean).join(" ");
  if (text.length > GOAL_MAX_CHARS)
    return { error: t("chat.goalTooLong", { length: text.length, max: GOAL_MAX_CHARS }) };

  return { objective: text, set_at: now.toISOString() };
}
