/**
 * The durable record of a `batch_task` call: one batch row and one row per item, in the database the
 * threads live in (SQLite `{home}/checkpoints.sqlite` or Postgres). Items are claimed with leases, so a
 * worker that dies (a crash, a SIGKILL, a lost host) leaves rows another claim takes over once their
 * lease has expired; a finished item's result is written in the same statement that marks it done and
 * only while its claimer still holds the lease, so each item is recorded exactly once whatever ran twice.
 *
 * Two implementations: `sqlite-store.ts` and `postgres-store.ts`; `memory` tests use the SQLite one on
 * `:memory:`.
 */

/** One batch: a `batch_task` call of one thread (its tool call id), owned by the run's user. */
export interface BatchRecord {
  batchId: string;
  threadId: string;
  toolCallId: string;
  /** The run's user id; null for the home's local user. */
  owner: string | null;
  description: string;
  /** The prompt template (`{item}` placeholders), or null when each item is its own prompt. */
  template: string | null;
  subagentType: string;
  concurrency: number;
  maxAttempts: number;
  total: number;
  /** The virtual path of the results file (under /mnt/user-data/outputs). */
  outputPath: string;
  createdAt: string;
}

/** What creating a batch needs; `items` are JSON texts, in order (index 0 first). */
export interface NewBatch extends Omit<BatchRecord, "total" | "createdAt"> {
  items: readonly string[];
}

/** An item a worker holds: its index, its JSON text, and which attempt this claim is (1-based). */
export interface ClaimedItem {
  index: number;
  item: string;
  attempt: number;
}

/** Item counts of a batch by state. */
export interface BatchCounts {
  total: number;
  pending: number;
  running: number;
  done: number;
  failed: number;
}

/** A settled item as the results file shows it. */
export interface SettledItem {
  index: number;
  item: string;
  state: "done" | "failed";
  attempts: number;
  result: string | null;
  error: string | null;
}

/** What happened to a failed attempt: queued again, failed for good, or not ours any more (lease lost). */
export type FailOutcome = "retry" | "failed" | "lost";

/** The batch tables of one database. Times are epoch milliseconds of the caller's clock. */
export interface BatchStore {
  /** The batch of this thread and tool call, if one was recorded. */
  find(threadId: string, toolCallId: string): Promise<BatchRecord | undefined>;
  /**
   * Creates the batch and its item rows in one transaction, or returns the batch already recorded for
   * this thread and tool call (a resumed run calls the tool again with the same call id).
   */
  open(batch: NewBatch): Promise<{ batch: BatchRecord; created: boolean }>;
  /**
   * Claims up to `limit` items for `worker` until `now + leaseMs`: pending ones, and running ones whose
   * lease expired, lowest index first, while they have attempts left. An expired item out of attempts
   * is marked failed instead.
   */
  claim(batchId: string, worker: string, limit: number, now: number, leaseMs: number): Promise<ClaimedItem[]>;
  /** Extends the leases `worker` holds in the batch to `now + leaseMs`. */
  renew(batchId: string, worker: string, now: number, leaseMs: number): Promise<void>;
  /** Records an item's result and marks it done, only while `worker` holds it; false when it does not. */
  complete(batchId: string, index: number, worker: string, result: string): Promise<boolean>;
  /** Records a failed attempt: back to pending while attempts remain, else failed for good. */
  fail(batchId: string, index: number, worker: string, error: string): Promise<FailOutcome>;
  /** Gives back what `worker` holds without counting the attempt (the run was cancelled). */
  release(batchId: string, worker: string): Promise<void>;
  /** Expires the leases of the given holders now (holders known to be dead). */
  expire(batchId: string, workers: readonly string[]): Promise<void>;
  /** The distinct holders of running items. */
  holders(batchId: string): Promise<string[]>;
  counts(batchId: string): Promise<BatchCounts>;
  /** Settled items with an index above `afterIndex`, in index order, at most `limit`. */
  settled(batchId: string, afterIndex: number, limit: number): Promise<SettledItem[]>;
  /** Deletes every batch of a thread with its items (the thread is being deleted). */
  deleteThread(threadId: string): Promise<void>;
  /** Marks the batch finished (its results file written). */
  finish(batchId: string, now: number): Promise<void>;
}

/** The batch's row holder name for a worker of this process: `host:pid:random`. */
export function workerName(host: string, pid: number, random: string): string {
  return `${host}:${pid}:${random}`;
}

/** The host and pid a worker name was made from (undefined for a name of another shape). */
export function parseWorkerName(name: string): { host: string; pid: number } | undefined {
  const match = /^(.*):(\d+):[^:]+$/.exec(name);
  return match ? { host: match[1]!, pid: Number(match[2]) } : undefined;
}
