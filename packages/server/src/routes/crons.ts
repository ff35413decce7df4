/**
 * The LangGraph crons API (`client.crons`): create (stateless, or on a thread), search, count, update,
 * delete. Every store call names the caller as owner, so someone else's cron answers 404 exactly like
 * a missing one. A change wakes the schedulers, so a new due time is fired on time.
 */
import type { Context } from "hono";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { callerOf } from "../auth/caller.js";
import { checkDeliverTo, checkPayload, createCron, dueOf } from "../crons/create-cron.js";
import { CronCountSchema, CronSearchSchema, CronUpdateSchema, payloadOf } from "../crons/cron-request.js";
import type { CronRecord } from "../crons/types.js";
import { notFound } from "../http/errors.js";
import { check, parseJsonText, pathId } from "../http/validate.js";

/** The cron as the API returns it (LangGraph's Cron, plus what the scheduler recorded). */
async function cronJson(context: ServerContext, cron: CronRecord, fields?: string[] | null) {
  const lastRun = cron.last_run_id ? await context.runs.get(cron.last_run_id) : null;
  const full: Record<string, unknown> = {
    cron_id: cron.cron_id,
    assistant_id: cron.assistant_id,
    thread_id: cron.thread_id,
    schedule: cron.schedule,
    timezone: cron.timezone,
    end_time: cron.end_time,
    payload: cron.payload,
    user_id: cron.owner,
    next_run_date: cron.next_run_at,
    metadata: cron.metadata,
    enabled: cron.enabled,
    on_run_completed: cron.on_run_completed,
    catch_up: cron.catch_up,
    run_at: cron.run_at,
    deliver_to: cron.deliver_to,
    last_run_id: cron.last_run_id,
    last_run_at: cron.last_run_at,
    last_run_status: lastRun?.status ?? null,
    skipped: cron.skipped,
    last_skipped_at: cron.last_skipped_at,
    last_error: cron.last_error,
    created_at: cron.created_at,
    updated_at: cron.updated_at,
  };
  if (!fields?.length) return full;
  return Object.fromEntries(fields.filter((field) => field in full).map((field) => [field, full[field]]));
}

async function readJson(c: Context): Promise<unknown> {
  return parseJsonText(await c.req.text());
}

/** Registers the cron routes. */
export const registerCronRoutes: RegisterRoutes = (api, context) => {
  api.post("/runs/crons", async (c) =>
    c.json(await cronJson(context, await createCron(context, callerOf(c), null, await readJson(c)))),
  );
  api.post("/threads/:thread_id/runs/crons", async (c) =>
    c.json(await cronJson(context, await createCron(context, callerOf(c), pathId(c, "thread_id"), await readJson(c)))),
  );
  api.post("/runs/crons/search", async (c) => {
    const query = check(CronSearchSchema, await readJson(c), "body");
    const crons = await context.crons.search({
      owner: callerOf(c).userId,
      assistant_id: query.assistant_id ?? undefined,
      thread_id: query.thread_id ?? undefined,
      enabled: query.enabled ?? undefined,
      metadata: query.metadata ?? undefined,
      limit: query.limit,
      offset: query.offset,
      sort_by: query.sort_by ?? "created_at",
      sort_order: query.sort_order ?? "desc",
    });
    return c.json(await Promise.all(crons.map((cron) => cronJson(context, cron, query.select))));
  });
  api.post("/runs/crons/count", async (c) => {
    const query = check(CronCountSchema, await readJson(c), "body");
    const count = await context.crons.count({
      owner: callerOf(c).userId,
      assistant_id: query.assistant_id ?? undefined,
      thread_id: query.thread_id ?? undefined,
      metadata: query.metadata ?? undefined,
    });
    return c.json(count);
  });
  api.patch("/runs/crons/:cron_id", async (c) => {
    const cronId = pathId(c, "cron_id");
    const owner = callerOf(c).userId;
    const request = check(CronUpdateSchema, await readJson(c), "body");
    const current = await context.crons.get(cronId, owner);
    if (!current) throw notFound(`Cron ${cronId}`);
    const payload = { ...current.payload, ...payloadOf(request) };
    checkPayload(current.assistant_id, payload);
    const schedule = request.schedule?.trim() ?? current.schedule;
    const timezone = request.timezone ?? current.timezone;
    const endTime = request.end_time === undefined ? current.end_time : request.end_time;
    const enabled = request.enabled ?? current.enabled;
    const timing =
      request.schedule != null || request.timezone != null || request.end_time !== undefined || request.enabled != null;
    const updated = await context.crons.update(cronId, owner, {
      schedule,
      timezone,
      end_time: endTime,
      enabled,
      payload,
      metadata: request.metadata ?? current.metadata,
      on_run_completed: request.on_run_completed ?? current.on_run_completed,
      catch_up: request.catch_up ?? current.catch_up,
      deliver_to:
        request.deliver_to === undefined
          ? current.deliver_to
          : request.deliver_to && checkDeliverTo(context, request.deliver_to),
      ...(timing
        ? {
            next_run_at: dueOf({
              schedule,
              timezone,
              end_time: endTime,
              run_at: current.run_at,
              next_run_at: current.next_run_at,
            }),
          }
        : {}),
    });
    if (!updated) throw notFound(`Cron ${cronId}`);
    await context.announceCrons();
    return c.json(await cronJson(context, updated));
  });
  api.delete("/runs/crons/:cron_id", async (c) => {
    const cronId = pathId(c, "cron_id");
    if (!(await context.crons.delete(cronId, callerOf(c).userId))) throw notFound(`Cron ${cronId}`);
    await context.announceCrons();
    return c.body(null, 204);
  });
};
