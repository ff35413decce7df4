/**
 * DeerFlow's Scheduled tasks routes (`/api/scheduled-tasks`), so its web app's Scheduled tasks page works
 * against this server. Tasks are crons (crons/scheduled-tasks.ts): pause and resume set `enabled`,
 * trigger fires a run now, runs lists the firings. Someone else's task is a 404 like a missing one.
 */
import type { Context } from "hono";
import { callerOf } from "../auth/caller.js";
import type { RegisterRoutes } from "../context.js";
import { dueOf } from "../crons/create-cron.js";
import { firingIds } from "../crons/firing-ids.js";
import { ScheduledTaskPatchSchema, TaskRunsQuerySchema } from "../crons/scheduled-task-request.js";
import {
  createTask,
  MAX_TASK_RUNS,
  patchTask,
  refuseWhileRunning,
  requireTask,
  taskFields,
  taskJson,
  taskRunJson,
  taskRuns,
} from "../crons/scheduled-tasks.js";
import { startCronRun } from "../crons/start-cron-run.js";
import { check, parseJsonText, pathId } from "../http/validate.js";
import { requireThread } from "../runs/threads.js";

async function readJson(c: Context): Promise<unknown> {
  return parseJsonText(await c.req.text());
}

/** Registers the scheduled-task routes (gateway routes, served under /api). */
export const registerScheduledTaskRoutes: RegisterRoutes = (api, context) => {
  /** The caller's tasks, newest first (optionally only those on one thread). */
  const listTasks = async (c: Context, threadId?: string) => {
    const crons = await context.crons.search({
      owner: callerOf(c).userId,
      thread_id: threadId,
      metadata: undefined,
      limit: 1000,
      offset: 0,
      sort_by: "created_at",
      sort_order: "desc",
    });
    const tasks = crons.filter((cron) => taskFields(cron) !== null);
    return c.json(await Promise.all(tasks.map((cron) => taskJson(context, cron))));
  };

  api.get("/scheduled-tasks", (c) => listTasks(c));
  api.get("/threads/:thread_id/scheduled-tasks", async (c) => {
    const threadId = pathId(c, "thread_id");
    await requireThread(context, callerOf(c), threadId);
    return listTasks(c, threadId);
  });
  api.post("/scheduled-tasks", async (c) =>
    c.json(await taskJson(context, await createTask(context, callerOf(c), await readJson(c)))),
  );
  api.get("/scheduled-tasks/:task_id", async (c) =>
    c.json(await taskJson(context, await requireTask(context, callerOf(c), pathId(c, "task_id")))),
  );
  api.patch("/scheduled-tasks/:task_id", async (c) => {
    const caller = callerOf(c);
    const cron = await requireTask(context, caller, pathId(c, "task_id"));
    const request = check(ScheduledTaskPatchSchema, await readJson(c), "body");
    await refuseWhileRunning(context, cron);
    return c.json(await taskJson(context, await patchTask(context, caller, cron, request)));
  });
  for (const [action, enabled] of [
    ["pause", false],
    ["resume", true],
  ] as const)
    api.post(`/scheduled-tasks/:task_id/${action}`, async (c) => {
      const caller = callerOf(c);
      const cron = await requireTask(context, caller, pathId(c, "task_id"));
      await refuseWhileRunning(context, cron);
      // Resuming counts from now: due times that passed while paused are not fired.
      const next = enabled ? { next_run_at: dueOf(cron) } : {};
      const updated = await context.crons.update(cron.cron_id, caller.userId, { enabled, ...next });
      await context.announceCrons();
      return c.json(await taskJson(context, updated ?? cron));
    });
  api.post("/scheduled-tasks/:task_id/trigger", async (c) => {
    const caller = callerOf(c);
    const cron = await requireTask(context, caller, pathId(c, "task_id"));
    const now = new Date();
    const ids = firingIds(cron.cron_id, now);
    await startCronRun(context, cron, ids, now, "manual");
    await context.crons.update(cron.cron_id, caller.userId, { last_run_id: ids.runId, last_run_at: now.toISOString() });
    return c.json({ id: cron.cron_id, triggered: true });
  });
  api.delete("/scheduled-tasks/:task_id", async (c) => {
    const caller = callerOf(c);
    const cron = await requireTask(context, caller, pathId(c, "task_id"));
    await context.crons.delete(cron.cron_id, caller.userId);
    await context.announceCrons();
    return c.json({ id: cron.cron_id, deleted: true });
  });
  api.get("/scheduled-tasks/:task_id/runs", async (c) => {
    const cron = await requireTask(context, callerOf(c), pathId(c, "task_id"));
    const query = check(TaskRunsQuerySchema, c.req.query(), "query");
    const runs = (await taskRuns(context, cron)).slice(
      query.offset,
      query.offset + Math.min(query.limit, MAX_TASK_RUNS),
    );
    return c.json(runs.map((run) => taskRunJson(cron, run)));
  });
};
