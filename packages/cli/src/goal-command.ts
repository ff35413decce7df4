/**
 * `/goal` in `deerflow chat`: sets, shows or clears the thread's goal. The goal is written to the
 * thread's state at once (no model call), so it is there for the next turn and for every later one,
 * compaction included.
 */
import { createGoal, type GoalState, parseGoalCommand } from "@deerflow/harness";
import type { Session } from "./session.js";

/** The text after `/goal` when `line` is a `/goal` command, else undefined. */
export function goalArgs(line: string): string | undefined {
  return line === "/goal" || line.startsWith("/goal ") ? line.slice("/goal".length) : undefined;
}

/**
 * Runs `/goal <args>` on the session's thread and returns the line to show.
 *
 * @example
 * await goalCommand(session, "Ship the beta"); // "goal set: Ship the beta"
 */
export async function goalCommand(session: Session, args: string): Promise<string> {
  const config = { configurable: { thread_id: session.threadId } };
  const command = parseGoalCommand(args);
  if (command.kind === "show") {
    const goal = ((await session.agent.graph.getState(config)).values as { goal?: GoalState | null }).goal;
    return goal ? `goal: ${goal.objective}` : "no goal set (/goal <text> sets one)";
  }
  if (command.kind === "clear") {
    await session.agent.graph.updateState(config, { goal: null });
    return "goal cleared";
  }
  let goal: GoalState;
  try {
    goal = createGoal(command.objective);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
  await session.agent.graph.updateState(config, { goal });
  return `goal set: ${goal.objective}`;
}
