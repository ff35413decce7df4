/**
 * DeerFlow's scheduled-task requests at the trust boundary, as its web app sends them (the create body,
 * the partial PATCH body and the runs page query).
 */
import { z } from "zod";
import { DeliverToSchema } from "./cron-request.js";

const ContextMode = z.enum(["fresh_thread_per_run", "reuse_thread"], {
  error: 'unsupported context_mode: use "fresh_thread_per_run" or "reuse_thread"',
});
const ScheduleSpec = z.object({ cron: z.string().nullish(), run_at: z.string().nullish() });

/** `POST /api/scheduled-tasks`. */
export const ScheduledTaskCreateSchema = z.object({
  context_mode: ContextMode.nullish(),
  thread_id: z.string().nullish(),
  title: z.string().trim().min(1, { error: "is required: a short name for the task" }),
  prompt: z.string().trim().min(1, { error: "is required: what the agent is asked at each run" }),
  schedule_type: z.enum(["once", "cron"], { error: 'unsupported schedule_type: use "once" or "cron"' }),
  schedule_spec: ScheduleSpec,
  timezone: z.string().min(1).default("UTC"),
  /** Ours: post each run's answer to a chat channel (docs/schedules.md). */
  deliver_to: DeliverToSchema.nullish(),
});
export type ScheduledTaskCreate = z.infer<typeof ScheduledTaskCreateSchema>;

/** `PATCH /api/scheduled-tasks/{id}`: every field optional. */
export const ScheduledTaskPatchSchema = z.object({
  context_mode: ContextMode.optional(),
  thread_id: z.string().nullish(),
  title: z.string().trim().min(1).optional(),
  prompt: z.string().trim().min(1).optional(),
  schedule_spec: ScheduleSpec.optional(),
  timezone: z.string().min(1).optional(),
  deliver_to: DeliverToSchema.nullish(),
});
export type ScheduledTaskPatch = z.infer<typeof ScheduledTaskPatchSchema>;

/** `GET /api/scheduled-tasks/{id}/runs`. */
export const TaskRunsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
