/**
 * Scheduled runs (crons, design §18) as stored, and the store both backends implement. A cron is a row
 * with its owner, its schedule and the next time it is due; firing it claims the row for a short lease
 * so that, across every process on one database, each due time is handled by exactly one of them.
 */

/** After downtime: fire nothing missed, only the latest missed due time, or every missed one. */
export type CatchUp = "none" | "latest" | "all";

/** A chat channel and the chat (Telegram chat id, Slack channel id) a firing's answer goes to. */
export interface DeliverTo {
  channel: "telegram" | "slack";
  target: string;
}

/** A cron as stored. */
export interface CronRecord {
  cron_id: string;
  assistant_id: string;
  /** The thread every firing runs on; null: a new thread per firing (a stateless cron). */
  thread_id: string | null;
  /** Five-field cron expression (minute hour day-of-month month day-of-week); unused when run_at is set. */
  schedule: string;
  /** A one-shot cron: fires once at this time (ISO 8601), then has no due time left. */
  run_at: string | null;
  /** Where each firing's final answer is posted (a chat channel), or null. */
  deliver_to: DeliverTo | null;
  /** IANA time zone the schedule is read in. */
  timezone: string;
  /** After this time the cron fires no more (ISO 8601), or null. */
  end_time: string | null;
  /** The run request each firing sends (RunCreate fields other than assistant_id). */
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  enabled: boolean;
  /** Stateless crons: delete or keep each firing's thread once its run ends. */
  on_run_completed: "delete" | "keep";
  catch_up: CatchUp;
  /** The user who owns the cron and its runs (null: the home's local user). */
  owner: string | null;
  /** When it is due next (ISO 8601), or null once it has no due time left (past end_time). */
  next_run_at: string | null;
  last_run_id: string | null;
  last_run_at: string | null;
  /** Due times skipped because the previous firing's run was still pending or running. */
  skipped: number;
  last_skipped_at: string | null;
  /** Why the last firing could not start a run (a deleted thread, a quota), or null. */
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** Search filters, as in `POST /runs/crons/search`; `owner` is always set by the route. */
export interface CronQuery {
  owner: string | null;
  assistant_id?: string;
  thread_id?: string;
  enabled?: boolean;
  metadata?: Record<string, unknown>;
  limit: number;
  offset: number;
  sort_by: "cron_id" | "assistant_id" | "thread_id" | "created_at" | "updated_at" | "next_run_date";
  sort_order: "asc" | "desc";
}

/** Fields a PATCH may change (next_run_at is recomputed by the route when the schedule changes). */
export type CronPatch = Partial<
  Pick<
    CronRecord,
    | "schedule"
    | "timezone"
    | "end_time"
    | "payload"
    | "metadata"
    | "enabled"
    | "on_run_completed"
    | "catch_up"
    | "next_run_at"
    | "run_at"
    | "deliver_to"
    | "thread_id"
    | "last_run_id"
    | "last_run_at"
  >
>;

/** What handling a claimed cron recorded; applied only while the claim is still held. */
export interface CronOutcome {
  next_run_at: string | null;
  last_run_id?: string;
  last_run_at?: string;
  /** Due times skipped by this handling. */
  skipped?: number;
  last_error?: string | null;
}

/** A cron taken for handling, with the token that proves the claim. */
export interface ClaimedCron {
  cron: CronRecord;
  token: string;
}

/** Crons on SQLite or Postgres. Every call a route makes names the owner; another owner's cron is missing. */
export interface CronStore {
  create(cron: CronRecord): Promise<void>;
  get(cronId: string, owner: string | null): Promise<CronRecord | null>;
  search(query: CronQuery): Promise<CronRecord[]>;
  count(query: Omit<CronQuery, "limit" | "offset" | "sort_by" | "sort_order" | "enabled">): Promise<number>;
  update(cronId: string, owner: string | null, patch: CronPatch): Promise<CronRecord | null>;
  delete(cronId: string, owner: string | null): Promise<boolean>;
  /** Deletes the crons of a thread (the thread is being deleted). */
  deleteForThread(threadId: string): Promise<void>;
  /** Deletes every cron of an owner (the user is being removed). */
  deleteForOwner(owner: string): Promise<void>;
  /**
   * Takes up to `limit` enabled crons whose next_run_at has come and that no live claim holds, for
   * `leaseMs`: other processes skip them until `release` or until the lease lapses (the claimer died).
   */
  claimDue(leaseMs: number, limit: number): Promise<ClaimedCron[]>;
  /** Records what the handling did and releases the claim; a no-op when the claim was lost. */
  release(claim: ClaimedCron, outcome: CronOutcome): Promise<void>;
  /** The earliest next_run_at of an enabled cron (ISO 8601), or null. */
  nextDue(): Promise<string | null>;
  /** Enabled crons with a due time left, of every owner. */
  countActive(): Promise<number>;
  close(): Promise<void> | void;
}
