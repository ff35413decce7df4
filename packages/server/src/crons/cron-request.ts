/**
 * Cron requests at the trust boundary, as the official SDK's `client.crons` sends them: the run request
 * fields a firing will send (checked now, so a bad payload is a 422 at creation, not a failed firing
 * at 3 am), plus the schedule's own fields. `catch_up` is ours (docs/schedules.md); the SDK does not
 * send it, so it defaults to `latest`.
 */
import { z } from "zod";
import { RunCreateSchema } from "../runs/run-request.js";

/** The run request fields a cron stores as its payload and sends with each firing. */
export const PAYLOAD_FIELDS = [
  "input",
  "config",
  "context",
  "interrupt_before",
  "interrupt_after",
  "webhook",
  "multitask_strategy",
  "checkpoint_during",
  "durability",
  "stream_mode",
  "stream_subgraphs",
  "stream_resumable",
] as const;

const run = RunCreateSchema.shape;
const payloadShape = Object.fromEntries(PAYLOAD_FIELDS.map((field) => [field, run[field]])) as {
  [K in (typeof PAYLOAD_FIELDS)[number]]: (typeof run)[K];
};
const CatchUp = z.enum(["none", "latest", "all"]);
const OnRunCompleted = z.enum(["delete", "keep"]);
/** Where a firing's answer goes: a configured chat channel and a chat in it. */
export const DeliverToSchema = z.strictObject({
  channel: z.enum(["telegram", "slack"], { error: 'must be "telegram" or "slack"' }),
  target: z.string().min(1, { error: "is required: a Telegram chat id or a Slack channel id" }),
});
const Time = z.iso.datetime({ offset: true, error: "must be an ISO 8601 time such as 2027-01-31T18:00:00Z" });

/** The cron's own settings, the same optional fields on create and on update. */
const cronSettingsShape = {
  timezone: z.string().min(1).nullish(),
  end_time: Time.nullish(),
  enabled: z.boolean().nullish(),
  on_run_completed: OnRunCompleted.nullish(),
  catch_up: CatchUp.nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  deliver_to: DeliverToSchema.nullish(),
};

/** `POST /runs/crons` and `POST /threads/{id}/runs/crons`. */
export const CronCreateSchema = z.strictObject({
  ...payloadShape,
  assistant_id: z.string().min(1),
  schedule: z.string({ error: 'is required: a five-field cron expression such as "0 9 * * 1-5"' }),
  ...cronSettingsShape,
});
export type CronCreate = z.infer<typeof CronCreateSchema>;

/** `PATCH /runs/crons/{id}`: every field optional; `end_time: null` clears it. */
export const CronUpdateSchema = z.strictObject({
  ...payloadShape,
  schedule: z.string().nullish(),
  ...cronSettingsShape,
});
export type CronUpdate = z.infer<typeof CronUpdateSchema>;

const SortBy = z.enum(["cron_id", "assistant_id", "thread_id", "created_at", "updated_at", "next_run_date"]);

/** `POST /runs/crons/search`. */
export const CronSearchSchema = z.strictObject({
  assistant_id: z.string().nullish(),
  thread_id: z.string().nullish(),
  enabled: z.boolean().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  sort_by: SortBy.nullish(),
  sort_order: z.enum(["asc", "desc"]).nullish(),
  select: z.array(z.string()).nullish(),
});

/** `POST /runs/crons/count`. */
export const CronCountSchema = z.strictObject({
  assistant_id: z.string().nullish(),
  thread_id: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

/** The payload fields of a request that has them (undefined ones left out). */
export function payloadOf(request: Partial<Record<(typeof PAYLOAD_FIELDS)[number], unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    PAYLOAD_FIELDS.filter((field) => request[field] !== undefined).map((field) => [field, request[field]]),
  );
}
