/**
 * DeerFlow's scheduled tasks as a view over crons (one store, one scheduler): a task is a cron owned by
 * its creator whose metadata carries the task's title, prompt and schedule as the web app sent them.
 * `cron` tasks keep a five-field schedule; `once` tasks are one-shot crons (`run_at`). A task on a
 * thread (`reuse_thread`) is a cron on that thread; `fresh_thread_per_run` is a stateless cron whose
 * threads are kept, so each firing can be opened. A task's runs are the runs whose metadata names it.
 */
import type { Caller } from "../auth/caller.js";
import type { ServerContext } from "../context.js";
import { HttpError, notFound } from "../http/errors.js";
import { check } from "../http/validate.js";
import { uuid7 } from "../runs/ids.js";
import { requireThread } from "../runs/threads.js";
import type { RunRecord, RunStatus } from "../runs/types.js";
import { checkDeliverTo, checkPayload, firstDue, NEVER_FIRED, saveNewCron } from "./create-cron.js";
import { checkTimezone } from "./schedule.js";
import {
  type ScheduledTaskCreate,
  ScheduledTaskCreateSchema,
  type ScheduledTaskPatch,
} from "./scheduled-task-request.js";
import type { CronRecord } from "./types.js";

/** The assistant every task runs (DeerFlow's tasks always run the lead agent). */
const TASK_ASSISTANT = "lead_agent";
/** Most runs a runs page returns. */
export const MAX_TASK_RUNS = 200;

/** What a cron's metadata holds for a task (the task fields crons do not have). */
export interface TaskFields {
  title: string;
  prompt: string;
  schedule_type: "once" | "cron";
  schedule_spec: { cron: string } | { run_at: string };
  context_mode: "fresh_thread_per_run" | "reuse_thread";
}

/** The task fields of a cron, or null when the cron is not a scheduled task. */
export function taskFields(cron: CronRecord): TaskFields | null {
  const fields = cron.metadata.scheduled_task;
  return fields && typeof fields === "object" ? (fields as TaskFields) : null;
}

/** The UTC time of `value`: an ISO time with an offset as is, a naive one read as wall-clock time in `timezone`. */
export function wallClockToUtc(value: string, timezone: string): Date {
  if (/(Z|[+-]\d\d:?\d\d)$/i.test(value)) return new Date(value);
  const asUtc = new Date(`${value}Z`);
  if (Number.isNaN(asUtc.getTime())) return asUtc;
  const offsetAt = (at: Date) => {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat("en-US", {
        timeZone: timezone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      })
        .formatToParts(at)
        .map((part) => [part.type, part.value]),
    );
    const wall = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
    return wall - Math.floor(at.getTime() / 1000) * 1000;
  };
  const guess = new Date(asUtc.getTime() - offsetAt(asUtc));
  return new Date(asUtc.getTime() - offsetAt(guess));
}

/** The schedule fields of a cron for a task's schedule (422 saying what is wrong). */
function scheduleOf(
  type: TaskFields["schedule_type"],
  spec: { cron?: string | null; run_at?: string | null },
  timezone: string,
): Pick<CronRecord, "schedule" | "run_at"> & { spec: TaskFields["schedule_spec"] } {
  checkTimezone(timezone);
  if (type === "cron") {
    if (!spec.cron?.trim())
      throw new HttpError(422, 'cron schedule requires schedule_spec.cron, e.g. {"cron": "0 9 * * 1-5"}.');
    const cron = spec.cron.trim().split(/\s+/).join(" ");
    firstDue(cron, timezone, null);
    return { schedule: cron, run_at: null, spec: { cron } };
  }
  if (!spec.run_at)
    throw new HttpError(422, 'once schedule requires schedule_spec.run_at, e.g. {"run_at": "2027-01-31T09:00:00"}.');
  const at = wallClockToUtc(spec.run_at, timezone);
  if (Number.isNaN(at.getTime()))
    throw new HttpError(
      422,
      `Invalid schedule_spec.run_at "${spec.run_at}": use an ISO time such as 2027-01-31T09:00:00.`,
    );
  if (at.getTime() <= Date.now())
    throw new HttpError(422, `once schedule must be in the future: ${spec.run_at} (${timezone}) has passed.`);
  return { schedule: "@once", run_at: at.toISOString(), spec: { run_at: spec.run_at } };
}

/** The run request each firing of a task sends: its prompt as the user's message. */
function payloadFor(prompt: string): Record<string, unknown> {
  const payload = { input: { messages: [{ role: "user", content: prompt }] } };
  checkPayload(TASK_ASSISTANT, payload);
  return payload;
}

/** The thread a task runs on (404 when the caller cannot see it), or null for a new thread per run. */
async function threadFor(
  context: ServerContext,
  caller: Caller,
  mode: TaskFields["context_mode"],
  threadId: string | null | undefined,
): Promise<string | null> {
  if (mode === "fresh_thread_per_run") return null;
  if (!threadId)
    throw new HttpError(422, "reuse_thread requires thread_id: the thread every run of the task continues.");
  await requireThread(context, caller, threadId);
  return threadId;
}

/** Creates a task (a cron) owned by `caller` from DeerFlow's create body. */
export async function createTask(context: ServerContext, caller: Caller, body: unknown): Promise<CronRecord> {
  const request: ScheduledTaskCreate = check(ScheduledTaskCreateSchema, body, "body");
  const mode = request.context_mode ?? "fresh_thread_per_run";
  const threadId = await threadFor(context, caller, mode, request.thread_id);
  const { spec, ...schedule } = scheduleOf(request.schedule_type, request.schedule_spec, request.timezone);
  const task: TaskFields = {
    title: request.title,
    prompt: request.prompt,
    schedule_type: request.schedule_type,
    schedule_spec: spec,
    context_mode: mode,
  };
  const at = new Date().toISOString();
  const cron: CronRecord = {
    cron_id: uuid7(),
    assistant_id: TASK_ASSISTANT,
    thread_id: threadId,
    ...schedule,
    deliver_to: request.deliver_to ? checkDeliverTo(context, request.deliver_to) : null,
    timezone: request.timezone,
    end_time: null,
    payload: payloadFor(request.prompt),
    metadata: { scheduled_task: task },
    enabled: true,
    on_run_completed: "keep",
    catch_up: "latest",
    owner: caller.userId,
    next_run_at: schedule.run_at ?? firstDue(schedule.schedule, request.timezone, null),
    ...NEVER_FIRED,
    created_at: at,
    updated_at: at,
  };
  return saveNewCron(context, cron);
}

/** The caller's task `id` (404 "Scheduled task not found" for a missing cron, someone else's, or a plain cron). */
export async function requireTask(context: ServerContext, caller: Caller, id: string): Promise<CronRecord> {
  const cron = await context.crons.get(id, caller.userId);
  if (!cron || !taskFields(cron)) throw notFound("Scheduled task");
  return cron;
}

/** The status of a task as DeerFlow reports it. */
export async function taskStatus(context: ServerContext, cron: CronRecord): Promise<string> {
  const last = cron.last_run_id ? await context.runs.get(cron.last_run_id) : null;
  if (last?.status === "pending" || last?.status === "running") return "running";
  if (!cron.enabled) return "paused";
  if (cron.run_at && cron.next_run_at === null) return last?.status === "success" ? "completed" : "failed";
  return "enabled";
}

/** Throws a 409 while the task's run is in progress (DeerFlow refuses changes then). */
export async function refuseWhileRunning(context: ServerContext, cron: CronRecord): Promise<void> {
  if ((await taskStatus(context, cron)) === "running")
    throw new HttpError(409, "Scheduled task is currently running; retry after the active execution finishes.");
}

/** Applies DeerFlow's PATCH to a task's cron. */
export async function patchTask(
  context: ServerContext,
  caller: Caller,
  cron: CronRecord,
  request: ScheduledTaskPatch,
): Promise<CronRecord> {
  const task = taskFields(cron)!;
  const mode = request.context_mode ?? task.context_mode;
  const threadId =
    request.context_mode !== undefined || request.thread_id !== undefined
      ? await threadFor(context, caller, mode, request.thread_id ?? cron.thread_id)
      : cron.thread_id;
  const timezone = request.timezone ?? cron.timezone;
  const timing = request.schedule_spec !== undefined || request.timezone !== undefined;
  const spec = (request.schedule_spec ?? task.schedule_spec) as { cron?: string; run_at?: string };
  const { spec: newSpec, ...schedule } = timing
    ? scheduleOf(task.schedule_type, spec, timezone)
    : { schedule: cron.schedule, run_at: cron.run_at, spec: task.schedule_spec };
  const prompt = request.prompt ?? task.prompt;
  const next: TaskFields = {
    ...task,
    title: request.title ?? task.title,
    prompt,
    context_mode: mode,
    schedule_spec: newSpec,
  };
  const updated = await context.crons.update(cron.cron_id, caller.userId, {
    thread_id: threadId,
    timezone,
    ...schedule,
    payload: payloadFor(prompt),
    metadata: { ...cron.metadata, scheduled_task: next },
    ...(request.deliver_to !== undefined
      ? { deliver_to: request.deliver_to && checkDeliverTo(context, request.deliver_to) }
      : {}),
    ...(timing
      ? {
          next_run_at: schedule.run_at ?? firstDue(schedule.schedule, timezone, cron.end_time),
          // A one-shot moved to a new time fires again: it counts from its new time.
          ...(schedule.run_at ? { enabled: true } : {}),
        }
      : {}),
  });
  if (!updated) throw notFound("Scheduled task");
  await context.announceCrons();
  return updated;
}

/** A task as DeerFlow's ScheduledTask. */
export async function taskJson(context: ServerContext, cron: CronRecord) {
  const task = taskFields(cron)!;
  const last = cron.last_run_id ? await context.runs.get(cron.last_run_id) : null;
  return {
    id: cron.cron_id,
    thread_id: cron.thread_id,
    context_mode: task.context_mode,
    title: task.title,
    prompt: task.prompt,
    schedule_type: task.schedule_type,
    schedule_spec: task.schedule_spec,
    timezone: cron.timezone,
    status: await taskStatus(context, cron),
    next_run_at: cron.enabled ? cron.next_run_at : null,
    last_run_at: cron.last_run_at,
    last_run_id: cron.last_run_id,
    last_thread_id: last?.thread_id ?? null,
    last_error: cron.last_error ?? (last?.status === "error" ? "The run failed; open its thread for the error." : null),
    run_count: (await taskRuns(context, cron)).length,
    created_at: cron.created_at,
    updated_at: cron.updated_at,
    deliver_to: cron.deliver_to,
  };
}

const RUN_STATUS: Record<RunStatus, string> = {
  pending: "queued",
  running: "running",
  success: "success",
  error: "failed",
  timeout: "failed",
  interrupted: "interrupted",
};

/** Every run a task's firings started, newest first. */
export async function taskRuns(context: ServerContext, cron: CronRecord): Promise<RunRecord[]> {
  const threads = cron.thread_id
    ? [cron.thread_id]
    : (
        await context.threads.search({
          metadata: { cron_id: cron.cron_id },
          owner: cron.owner,
          limit: MAX_TASK_RUNS,
          offset: 0,
          sort_by: "created_at",
          sort_order: "desc",
          fields: ["thread_id"],
        })
      ).threads.flatMap((thread) => (thread.thread_id ? [thread.thread_id] : []));
  const runs = await Promise.all(
    threads.map((threadId) => context.runs.list(threadId, { limit: MAX_TASK_RUNS, offset: 0 })),
  );
  return runs
    .flat()
    .filter((run) => run.metadata.cron_id === cron.cron_id)
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
}

/** A firing's run as DeerFlow's ScheduledTaskRun. */
export function taskRunJson(cron: CronRecord, run: RunRecord) {
  const over = run.status !== "pending" && run.status !== "running";
  return {
    id: run.run_id,
    task_id: cron.cron_id,
    thread_id: run.thread_id,
    run_id: run.run_id,
    scheduled_for: (run.metadata.cron_due_at as string | undefined) ?? run.created_at,
    trigger: run.metadata.cron_trigger === "manual" ? "manual" : "scheduled",
    status: RUN_STATUS[run.status],
    error: run.status === "error" || run.status === "timeout" ? `The run ended with status ${run.status}.` : null,
    started_at: run.status === "pending" ? null : run.created_at,
    finished_at: over ? run.updated_at : null,
    created_at: run.created_at,
  };
}
