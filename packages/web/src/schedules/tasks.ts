/**
 * Scheduled tasks over the LangGraph crons API through the SDK's `client.crons` (docs/schedules.md). A
 * task is a stateless cron of the lead agent whose input is one user message; each firing runs on a
 * new thread that is kept (`on_run_completed: keep`), so the person can open what it did. The server
 * adds what its scheduler recorded (last run, its status, skips, why a firing started no run).
 */
import type { Client, Cron } from "@langchain/langgraph-sdk";

/** A cron as this server answers: LangGraph's fields plus the scheduler's record. */
export interface ScheduledTask extends Cron {
  last_run_id?: string | null;
  last_run_at?: string | null;
  /** The last run's status now: pending, running, success, error, timeout, interrupted. */
  last_run_status?: string | null;
  skipped?: number;
  last_error?: string | null;
}

/** What the form asks for. */
export interface NewTask {
  prompt: string;
  schedule: string;
  timezone: string;
}

/** The task's prompt: the text of the first message of its input. */
export function promptOf(task: Cron): string {
  const input = task.payload?.input as { messages?: { content?: unknown }[] } | undefined;
  const content = input?.messages?.[0]?.content;
  return typeof content === "string" ? content : "";
}

/** The person's tasks, the one due soonest first. */
export async function listTasks(client: Client): Promise<ScheduledTask[]> {
  return (await client.crons.search({ limit: 100, sortBy: "next_run_date", sortOrder: "asc" })) as ScheduledTask[];
}

/** Creates the task; rejects with the server's error (a 422 says what is wrong with the schedule). */
export async function createTask(client: Client, task: NewTask): Promise<ScheduledTask> {
  return (await client.crons.create("lead_agent", {
    input: { messages: [{ role: "user", content: task.prompt }] },
    schedule: task.schedule,
    timezone: task.timezone,
    onRunCompleted: "keep",
  })) as unknown as ScheduledTask;
}

/** Pauses (false) or resumes (true) a task. */
export async function setEnabled(client: Client, cronId: string, enabled: boolean): Promise<void> {
  await client.crons.update(cronId, { enabled });
}

/** Deletes a task; the threads its firings made stay. */
export async function deleteTask(client: Client, cronId: string): Promise<void> {
  await client.crons.delete(cronId);
}

/**
 * The thread of the task's last firing, or undefined when there is none (never fired, or its thread was
 * deleted). A thread cron runs on its thread; a stateless firing's thread carries the cron's id in its
 * metadata, and the newest one is the last firing's.
 */
export async function lastFiringThread(client: Client, task: ScheduledTask): Promise<string | undefined> {
  if (!task.last_run_id) return undefined;
  if (task.thread_id) return task.thread_id;
  const [thread] = await client.threads.search({
    metadata: { cron_id: task.cron_id },
    limit: 1,
    sortBy: "created_at",
    sortOrder: "desc",
  });
  return thread?.thread_id;
}
