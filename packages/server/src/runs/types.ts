/**
 * The four interfaces the run machinery is built on (design §13), and the records they hold. The local
 * implementations are SQLite tables in the checkpoint file, an in-process queue and an in-memory event
 * log; a cluster adds Postgres and Redis implementations of the same interfaces and nothing else.
 * Every method is async so those implementations fit without changing callers.
 */

import { z } from "zod";

/** Thread status as the LangGraph API reports it. */
export const ThreadStatus = z.enum(["idle", "busy", "interrupted", "error"]);
export type ThreadStatus = z.infer<typeof ThreadStatus>;

/** A thread as stored (state values are a cache of the checkpointer's head, refreshed when runs end). */
export interface ThreadRecord {
  thread_id: string;
  created_at: string;
  updated_at: string;
  state_updated_at: string;
  metadata: Record<string, unknown>;
  status: ThreadStatus;
  values: Record<string, unknown> | null;
  interrupts: Record<string, unknown[]>;
  error: string | null;
  /** The user who owns the thread (null: the home's local user); never sent to clients. */
  owner: string | null;
}

/** A thread field a search can be asked for (the owner is never sent to clients). */
export type ThreadField = Exclude<keyof ThreadRecord, "owner">;

/** Thread search filters (all optional), as in `POST /threads/search`. */
export interface ThreadQuery {
  ids?: string[];
  metadata?: Record<string, unknown>;
  values?: Record<string, unknown>;
  status?: ThreadStatus;
  /** Only this owner's threads (null: the local user's); undefined: everyone's (internal use only). */
  owner?: string | null;
  limit: number;
  offset: number;
  sort_by: "thread_id" | "status" | "created_at" | "updated_at" | "state_updated_at";
  sort_order: "asc" | "desc";
  /** Only these fields of each thread are read (`select`); all but the owner when absent. */
  fields?: readonly ThreadField[];
}

/** A change to a thread; `metadata` is merged into the stored metadata. */
export interface ThreadPatch {
  metadata?: Record<string, unknown>;
  status?: ThreadStatus;
  values?: Record<string, unknown> | null;
  interrupts?: Record<string, unknown[]>;
  error?: string | null;
}

/** Threads. */
export interface ThreadStore {
  /** Creates a thread; with `ifExists: "do_nothing"` returns the existing one, else `created: false` signals a conflict. */
  create(
    threadId: string,
    metadata: Record<string, unknown>,
    ifExists: "raise" | "do_nothing",
    owner?: string | null,
  ): Promise<{ thread: ThreadRecord; created: boolean }>;
  get(threadId: string): Promise<ThreadRecord | null>;
  /**
   * One page of the matching threads, ordered by `sort_by` then thread id (both in `sort_order`), each with
   * the asked-for `fields` only; `total` counts every match.
   */
  search(query: ThreadQuery): Promise<{ threads: Partial<ThreadRecord>[]; total: number }>;
  /**
   * The same page, each thread as the JSON text of the API's `Thread` (runs/thread-json.ts): written by the
   * database from the stored JSON, which is not parsed. `select` is the client's list (every field when
   * absent or empty).
   */
  searchJson(
    query: Omit<ThreadQuery, "fields">,
    select?: readonly string[] | null,
  ): Promise<{ threads: string[]; total: number }>;
  count(query: Omit<ThreadQuery, "limit" | "offset" | "sort_by" | "sort_order">): Promise<number>;
  patch(threadId: string, patch: ThreadPatch): Promise<ThreadRecord | null>;
  /** Deletes the thread and its runs (`keepRuns`: only the thread, e.g. a stateless run's temporary thread). */
  delete(threadId: string, options?: { keepRuns?: boolean }): Promise<boolean>;
}

/** Run status as the LangGraph API reports it. */
export const RunStatus = z.enum(["pending", "running", "error", "success", "timeout", "interrupted"]);
export type RunStatus = z.infer<typeof RunStatus>;

/** Statuses after which a run is over. */
export const TerminalRunStatus = RunStatus.exclude(["pending", "running"]);
export type TerminalRunStatus = z.infer<typeof TerminalRunStatus>;
/** What happens to a thread's in-flight runs when a new run arrives. */
export type MultitaskStrategy = "reject" | "enqueue" | "interrupt" | "rollback";
/** How an in-flight run is stopped. */
export type CancelAction = "interrupt" | "rollback";

/** The stored request of a run, plus what the worker records about it. */
export interface RunKwargs {
  input: unknown;
  command: { resume?: unknown; update?: unknown; goto?: unknown } | null;
  /** DeerFlow run options taken from `context` and `config.configurable` (only the known, safe keys). */
  run_options: Record<string, unknown>;
  /** Other `configurable` / `context` keys, passed to the graph's config. */
  configurable: Record<string, unknown>;
  recursion_limit: number;
  tags: string[];
  stream_mode: string[];
  stream_subgraphs: boolean;
  on_disconnect: "cancel" | "continue";
  /** Fork from this checkpoint. */
  checkpoint_id: string | null;
  checkpoint_ns: string;
  interrupt_before: "*" | string[] | null;
  interrupt_after: "*" | string[] | null;
  /** Stateless run: the thread is temporary. */
  temporary: boolean;
  /** The user who started the run (null: the home's local user); a stateless run's thread goes away, this stays. */
  owner?: string | null;
  on_completion: "delete" | "keep";
  /** `after_seconds`: the run is not claimed before this time (ISO 8601). */
  not_before?: string;
  /** Where the run's final result is POSTed when it ends (webhooks/). */
  webhook?: string;
  /** Set by the worker: the thread's head checkpoint before the run started (rollback target). */
  start_checkpoint_id?: string | null;
  /** Set by the worker once the graph has checkpointed the input (or applied the command), so a resumed attempt does not send it again. */
  input_consumed?: boolean;
  attempt?: number;
  /** Set when the run ends: the final state values (kept for stateless runs, whose thread is deleted). */
  output?: unknown;
  /** Set when the run failed. */
  error?: { error: string; message: string };
}

/** A run as stored. */
export interface RunRecord {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: RunStatus;
  metadata: Record<string, unknown>;
  multitask_strategy: MultitaskStrategy;
  kwargs: RunKwargs;
}

/** Raised by `RunStore.insert` for `reject` when the thread is busy. */
export class ThreadBusyError extends Error {
  constructor(readonly threadId: string) {
    super(
      `Thread ${threadId} is already running a task. Wait for it to finish or choose a different multitask strategy.`,
    );
    this.name = "ThreadBusyError";
  }
}

/** What a user has in use when a run asks to start (the new run not included). */
export interface RunQuotaCounts {
  /** Their pending and running runs, across every process, less those the new run supersedes. */
  activeRuns: number;
  /** Runs started today (UTC). */
  runsToday: number;
  /** Model tokens recorded today (UTC). */
  tokensToday: number;
}

/**
 * A user's run quota, applied by `RunStore.insert` in the insert's own transaction (auth/quotas.ts builds
 * it): under a per-user lock the store counts, `check` decides, and an admitted run is added to the day's
 * `runs` with its row, so two processes cannot both take a user's last slot.
 */
export interface RunQuota {
  owner: string;
  /** The usage day (YYYY-MM-DD, UTC) the run is counted in. */
  day: string;
  /** Throws (an HttpError 429) when the counts leave no room for one more run. */
  check(counts: RunQuotaCounts): void;
}

/** Runs. */
export interface RunStore {
  /**
   * Inserts a pending run and applies the multitask strategy in one transaction: `reject` throws
   * ThreadBusyError when the thread has a pending or running run; `interrupt`/`rollback` return the
   * in-flight runs to stop (pending ones are settled here: interrupted, or deleted for rollback). With a
   * `quota`, the same transaction checks it and counts the run in the owner's usage; with `thread`, it
   * also applies that patch to the run's thread.
   */
  insert(run: RunRecord, quota?: RunQuota, thread?: ThreadPatch): Promise<{ superseded: RunRecord[] }>;
  get(runId: string): Promise<RunRecord | null>;
  list(threadId: string, options: { limit: number; offset: number; status?: RunStatus }): Promise<RunRecord[]>;
  /** Pending and running runs of a thread, oldest first. */
  active(threadId: string): Promise<RunRecord[]>;
  update(runId: string, patch: { status?: RunStatus; kwargs?: Partial<RunKwargs> }): Promise<RunRecord | null>;
  delete(runId: string): Promise<boolean>;
  deleteForThread(threadId: string): Promise<void>;
  /**
   * Records the end of a run in one step: its terminal `status` and `kwargs`, and its thread's state, the
   * thread's status being `thread.status` when given, else `busy` while the thread has other pending or
   * running runs and `idle` otherwise. With `owner` (a shared queue's row condition over `$1`…`$n`, which
   * are its `params`), nothing changes unless the run still meets it. Returns the number of the thread's
   * other pending or running runs, or null when the run is gone or no longer meets `owner`.
   */
  settle(runId: string, end: RunEnd): Promise<{ others: number } | null>;
}

/** How a run ended, for `RunStore.settle`. */
export interface RunEnd {
  status: TerminalRunStatus;
  kwargs: Partial<RunKwargs>;
  thread: ThreadPatch;
  owner?: RowFence;
}

/**
 * A shared queue's fence as a condition on the run's own `server_runs` row (`$1` is the run id), so a
 * write that carries it in its WHERE clause is checked against the row's latest version, after a
 * concurrent claim too.
 */
export interface RowFence {
  sql: string;
  params: unknown[];
}

/** Hands pending runs to workers, one running run per thread, and carries cancel requests. */
export interface RunQueue {
  /**
   * Claims the oldest pending run whose thread has no running run, marks it running, counts the attempt
   * (`kwargs.attempt`, returned already counted) and marks the thread `busy`, in one step.
   */
  claim(): Promise<RunRecord | null>;
  /** Wakes waiting workers: a run was queued or finished. */
  notify(): void;
  /** Resolves on `notify()` or after `ms`. */
  wait(ms: number): Promise<void>;
  /** Asks whoever executes `runId` to stop. */
  cancel(runId: string, action: CancelAction): void;
  /** Calls `listener` when a cancel for `runId` arrives; returns the unsubscribe function. */
  onCancel(runId: string, listener: (action: CancelAction) => void): () => void;
  /**
   * Shared queues only: calls `listener` when `runId` is no longer this process's (its lease lapsed and
   * another process took it over), so the executor stops without touching the run.
   */
  onLost?(runId: string, listener: () => void): () => void;
  /**
   * Shared queues only, called right after `claim()` returned `runId`: a check that this claim still owns
   * the run. The worker calls it before each write so an executor that lost its lease writes nothing.
   */
  fence?(runId: string): () => Promise<boolean>;
  /**
   * Shared queues on Postgres: the fence as a SQL condition (over `$1`…`$n`, which are `params`), for a
   * write that checks it in its own statement (the checkpointer's) instead of calling `fence` first.
   * Undefined when this process holds no claim of `runId`.
   */
  fenceCondition?(runId: string): { sql: string; params: unknown[]; row: RowFence } | undefined;
  /** Shared queues only: the run as stored while this claim still owns it, else null (the fence and a read in one). */
  owned?(runId: string): Promise<RunRecord | null>;
  /** Runs left `running` by a process that died: back to pending so they resume. Returns them. */
  recover(): Promise<RunRecord[]>;
}

/** One SSE event as stored: the JSON text of `data` is computed once and shared by every reader. */
export interface StreamEvent {
  id: string;
  event: string;
  data: string;
}

/** What a reader gets when its cursor is older than the retained log. */
export interface GapEvent {
  gap: {
    code: "stream_replay_gap";
    run_id: string;
    requested_event_id: string;
    earliest_available_event_id: string | null;
    latest_available_event_id: string | null;
    recovery: "reload_durable_state";
  };
}

/** Per-run event log: bounded, ordered, replayable, with a terminal event that is never dropped. */
export interface EventLog {
  /** Appends an event (data is JSON text); returns its id. Ignored after `end`. */
  append(runId: string, event: string, data: string): Promise<string>;
  /** Appends `end` and closes the log; it stays readable for the retention time. */
  end(runId: string): Promise<void>;
  /** True while the run has a log (open, or ended within the retention time). */
  has(runId: string): Promise<boolean>;
  /** True when the log holds its terminal event. */
  ended(runId: string): Promise<boolean>;
  /**
   * Events after the cursor, then live ones until `end`. `after`: null = only new events, "-1" = from
   * the start, an id = strictly after it. A cursor older than the log yields one GapEvent and stops.
   * Yields nothing for a run without a log.
   */
  follow(runId: string, after: string | null, signal: AbortSignal): AsyncIterable<StreamEvent | GapEvent>;
  /** Drops the run's log now. */
  drop(runId: string): Promise<void>;
}
