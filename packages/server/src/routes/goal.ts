/**
 * `/api/threads/{thread_id}/goal`: where DeerFlow's frontend sends `/goal` (GET shows the goal, PUT
 * `{objective}` sets it, DELETE clears it), each answering `{goal}`. The goal is the thread's `goal`
 * channel, the one `deerflow chat` and our web app write through the state route. The answer carries
 * DeerFlow's goal fields; the continuation counters are 0 because DeerFlow.ts does not continue runs on
 * its own to pursue a goal (docs/README.md).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { createGoal, type GoalState } from "@deerflow/harness";
import { z } from "zod";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { type Caller, callerOf, owns } from "../auth/caller.js";
import { HttpError, notFound } from "../http/errors.js";
import { parseBody, pathId } from "../http/validate.js";
import { findThread, implicitCreationFile } from "../runs/threads.js";
import { updateThreadValues } from "../runs/update-state.js";

const SetGoalSchema = z.strictObject({
  objective: z.string(),
  // DeerFlow's cap on automatic continuations; accepted and ignored (no continuations here).
  max_continuations: z.number().int().min(0).max(8).nullish(),
});

/** DeerFlow's goal object for ours, or null. */
function wireGoal(goal: GoalState | null | undefined) {
  if (!goal) return null;
  return {
    objective: goal.objective,
    status: "active" as const,
    created_at: goal.set_at,
    updated_at: goal.set_at,
    continuation_count: 0,
    max_continuations: 0,
    no_progress_count: 0,
    max_no_progress_continuations: 0,
  };
}

async function currentGoal(context: ServerContext, threadId: string): Promise<GoalState | null> {
  const snapshot = await context.harness.agent().graph.getState({ configurable: { thread_id: threadId } });
  return ((snapshot.values ?? {}) as { goal?: GoalState | null }).goal ?? null;
}

async function refuseWhileRunning(context: ServerContext, threadId: string, what: string): Promise<void> {
  if ((await context.runs.active(threadId)).length > 0)
    throw new HttpError(409, `Thread ${threadId} has a run in progress. ${what} the goal after the run finishes.`);
}

/**
 * Creates the thread for the caller when it does not exist yet: DeerFlow's frontend may set a goal
 * before the first message. The ownership guard has already answered 404 for someone else's thread or
 * reserved id; `owns` covers a thread created by someone else a moment ago.
 */
async function ensureThread(context: ServerContext, caller: Caller, threadId: string): Promise<void> {
  if (await findThread(context, threadId)) return;
  const { thread, created } = await context.threads.create(threadId, {}, "do_nothing", caller.userId);
  if (!owns(caller, thread.owner)) throw notFound(`Thread ${threadId}`);
  // The frontend creates the thread itself with its first message: that create answers this thread.
  if (created) {
    const marker = implicitCreationFile(context, threadId);
    await mkdir(path.dirname(marker), { recursive: true });
    await writeFile(marker, "goal\n");
  }
}

/** Registers the goal routes. */
export const registerGoalRoutes: RegisterRoutes = (api, context) => {
  api.get("/threads/:thread_id/goal", async (c) => {
    const threadId = pathId(c, "thread_id");
    // A thread not created yet (a new chat) has no goal; someone else's never reaches here (the guard).
    if (!(await findThread(context, threadId))) return c.json({ goal: null });
    return c.json({ goal: wireGoal(await currentGoal(context, threadId)) });
  });

  api.put("/threads/:thread_id/goal", async (c) => {
    const threadId = pathId(c, "thread_id");
    const body = await parseBody(c, SetGoalSchema);
    let goal: GoalState;
    try {
      goal = createGoal(body.objective);
    } catch (error) {
      throw new HttpError(422, `Invalid body field "objective": ${(error as Error).message}`);
    }
    await ensureThread(context, callerOf(c), threadId);
    await refuseWhileRunning(context, threadId, "Set");
    await updateThreadValues(context, { threadId }, { goal });
    return c.json({ goal: wireGoal(goal) });
  });

  api.delete("/threads/:thread_id/goal", async (c) => {
    const threadId = pathId(c, "thread_id");
    if (!(await findThread(context, threadId))) return c.json({ goal: null });
    await refuseWhileRunning(context, threadId, "Clear");
    if (await currentGoal(context, threadId)) await updateThreadValues(context, { threadId }, { goal: null });
    return c.json({ goal: null });
  });
};
