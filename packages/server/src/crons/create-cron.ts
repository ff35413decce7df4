/**
 * Creating a cron, shared by the API (`client.crons.create` / `createForThread`) and `deerflow cron
 * add`: the request is checked as a firing would send it (assistant, thread, payload, schedule and time
 * zone), so a cron that is accepted can fire; its first due time is computed from now.
 */
import type { Caller } from "../auth/caller.js";
import type { ServerContext } from "../context.js";
import { HttpError, notFound } from "../http/errors.js";
import { check } from "../http/validate.js";
import { findAssistant } from "../runs/assistants.js";
import { uuid7 } from "../runs/ids.js";
import { RunCreateSchema } from "../runs/run-request.js";
import { requireThread } from "../runs/threads.js";
import { CronCreateSchema, payloadOf } from "./cron-request.js";
import { nextDueAfter, parseSchedule } from "./schedule.js";
import type { CronRecord, DeliverTo } from "./types.js";

/** The next due time of a schedule from now (422 on a bad schedule or time zone), or null past end_time. */
export function firstDue(schedule: string, timezone: string, endTime: string | null): string | null {
  return nextDueAfter(parseSchedule(schedule, timezone), new Date(), endTime)?.toISOString() ?? null;
}

/** The next due time of `cron` from now: a one-shot keeps its own (run_at until it fired, then none). */
export function dueOf(
  cron: Pick<CronRecord, "schedule" | "timezone" | "end_time" | "run_at" | "next_run_at">,
): string | null {
  if (cron.run_at) return cron.next_run_at;
  return firstDue(cron.schedule, cron.timezone, cron.end_time);
}

/** Returns `deliverTo` when its channel is configured in config.yaml; else a 422 saying what to add. */
export function checkDeliverTo(context: ServerContext, deliverTo: DeliverTo): DeliverTo {
  if (!context.channels.configured(deliverTo.channel))
    throw new HttpError(
      422,
      `Invalid body field "deliver_to": the ${deliverTo.channel} channel is not configured. Add channels.${deliverTo.channel} to config.yaml (docs/channels.md), or leave deliver_to out.`,
    );
  return deliverTo;
}

/** What a cron carries before its first firing, beside its settings. */
export const NEVER_FIRED = {
  last_run_id: null,
  last_run_at: null,
  skipped: 0,
  last_skipped_at: null,
  last_error: null,
} as const;

/** Stores a new cron and wakes the scheduler of every process, so its first due time is not missed. */
export async function saveNewCron(context: ServerContext, cron: CronRecord): Promise<CronRecord> {
  await context.crons.create(cron);
  await context.announceCrons();
  return cron;
}

/** Checks that a firing's request would be accepted (the same schema createRun applies). */
export function checkPayload(assistantId: string, payload: Record<string, unknown>): void {
  check(RunCreateSchema, { ...payload, assistant_id: assistantId }, "body");
}

/**
 * Creates a cron owned by `caller` from a request body (422 / 404 as the API answers them).
 *
 * @example
 * await createCron(context, caller, null, { assistant_id: "lead_agent", schedule: "0 9 * * 1-5", timezone: "Asia/Shanghai", input: { messages: [{ role: "user", content: "Brief me" }] } });
 */
export async function createCron(
  context: ServerContext,
  caller: Caller,
  threadId: string | null,
  body: unknown,
): Promise<CronRecord> {
  const request = check(CronCreateSchema, body, "body");
  if (!findAssistant(context.assistants(caller.userId), request.assistant_id))
    throw notFound(`Assistant "${request.assistant_id}"`);
  if (threadId !== null) await requireThread(context, caller, threadId);
  const timezone = request.timezone ?? "UTC";
  const endTime = request.end_time ?? null;
  const payload = payloadOf(request);
  checkPayload(request.assistant_id, payload);
  const at = new Date().toISOString();
  const cron: CronRecord = {
    cron_id: uuid7(),
    assistant_id: request.assistant_id,
    thread_id: threadId,
    schedule: request.schedule.trim(),
    run_at: null,
    deliver_to: request.deliver_to ? checkDeliverTo(context, request.deliver_to) : null,
    timezone,
    end_time: endTime,
    payload,
    metadata: request.metadata ?? {},
    enabled: request.enabled ?? true,
    on_run_completed: request.on_run_completed ?? "delete",
    catch_up: request.catch_up ?? "latest",
    owner: caller.userId,
    next_run_at: firstDue(request.schedule, timezone, endTime),
    ...NEVER_FIRED,
    created_at: at,
    updated_at: at,
  };
  return saveNewCron(context, cron);
}
