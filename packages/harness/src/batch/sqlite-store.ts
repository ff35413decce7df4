/**
 * The batch tables in the SQLite file beside the checkpoints (`{home}/checkpoints.sqlite`), so a batch
 * lives exactly as long as its thread's state and one process's crash leaves both consistent. Every
 * change is one statement or one immediate transaction; better-sqlite3 is synchronous, so the promises
 * only give the Postgres store's shape.
 */
import type Database from "better-sqlite3";
import type { BatchCounts, BatchRecord, BatchStore, ClaimedItem, FailOutcome, NewBatch, SettledItem } from "./store.js";

/** The tables, created on first use (named `batch-1` in docs/batch.md). Postgres has the same (migration 10). */
export const SQLITE_BATCH_SCHEMA = `
CREATE TABLE IF NOT EXISTS deerflow_batches (
  batch_id TEXT PRIMARY KEY,
  thread_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  owner TEXT,
  description TEXT NOT NULL,
  template TEXT,
  subagent_type TEXT NOT NULL,
  concurrency INTEGER NOT NULL,
  max_attempts INTEGER NOT NULL,
  total INTEGER NOT NULL,
  output_path TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished_at INTEGER,
  UNIQUE (thread_id, tool_call_id)
);
CREATE TABLE IF NOT EXISTS deerflow_batch_items (
  batch_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  item TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'done', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  result TEXT,
  error TEXT,
  PRIMARY KEY (batch_id, idx)
);
CREATE INDEX IF NOT EXISTS deerflow_batch_items_state ON deerflow_batch_items (batch_id, state, idx);
`;

/** Error recorded for an item whose holder stopped renewing its lease on its last attempt. */
export const LEASE_LOST_ERROR = "its worker stopped (crash or lost lease) on the last attempt";

interface BatchRow {
  batch_id: string;
  thread_id: string;
  tool_call_id: string;
  owner: string | null;
  description: string;
  template: string | null;
  subagent_type: string;
  concurrency: number;
  max_attempts: number;
  total: number;
  output_path: string;
  created_at: string;
}

/** A batch row as a record (shared with the Postgres store). */
export function batchFromRow(row: BatchRow): BatchRecord {
  return {
    batchId: row.batch_id,
    threadId: row.thread_id,
    toolCallId: row.tool_call_id,
    owner: row.owner,
    description: row.description,
    template: row.template,
    subagentType: row.subagent_type,
    concurrency: Number(row.concurrency),
    maxAttempts: Number(row.max_attempts),
    total: Number(row.total),
    outputPath: row.output_path,
    createdAt: row.created_at,
  };
}

/** Opens the batch store on an open, writable SQLite database (creating its tables). */
export function openSqliteBatchStore(db: Database.Database): BatchStore {
  db.exec(SQLITE_BATCH_SCHEMA);
  const selectBatch = db.prepare<[string, string], BatchRow>(
    "SELECT * FROM deerflow_batches WHERE thread_id = ? AND tool_call_id = ?",
  );
  const insertBatch = db.prepare(
    `INSERT INTO deerflow_batches (batch_id, thread_id, tool_call_id, owner, description, template, subagent_type,
       concurrency, max_attempts, total, output_path, created_at)
     VALUES (@batchId, @threadId, @toolCallId, @owner, @description, @template, @subagentType, @concurrency,
       @maxAttempts, @total, @outputPath, @createdAt)`,
  );
  const insertItem = db.prepare("INSERT INTO deerflow_batch_items (batch_id, idx, item) VALUES (?, ?, ?)");
  const maxAttempts = db.prepare<[string], { max_attempts: number }>(
    "SELECT max_attempts FROM deerflow_batches WHERE batch_id = ?",
  );
  const failExpired = db.prepare(
    `UPDATE deerflow_batch_items SET state = 'failed', error = ?, lease_owner = NULL, lease_expires_at = NULL
     WHERE batch_id = ? AND state = 'running' AND lease_expires_at <= ? AND attempts >= ?`,
  );
  const claimRows = db.prepare<[string, number, string, string, number, number], ClaimRow>(
    `UPDATE deerflow_batch_items SET state = 'running', attempts = attempts + 1, lease_owner = ?, lease_expires_at = ?
     WHERE batch_id = ? AND idx IN (
       SELECT idx FROM deerflow_batch_items WHERE batch_id = ? AND (state = 'pending' OR (state = 'running' AND lease_expires_at <= ?))
       ORDER BY idx LIMIT ?)
     RETURNING idx, item, attempts`,
  );
  const renew = db.prepare(
    "UPDATE deerflow_batch_items SET lease_expires_at = ? WHERE batch_id = ? AND state = 'running' AND lease_owner = ?",
  );
  const complete = db.prepare(
    `UPDATE deerflow_batch_items SET state = 'done', result = ?, error = NULL, lease_owner = NULL, lease_expires_at = NULL
     WHERE batch_id = ? AND idx = ? AND state = 'running' AND lease_owner = ?`,
  );
  const failOne = db.prepare<[number, string, string, number, string], { state: string }>(
    `UPDATE deerflow_batch_items SET state = CASE WHEN attempts >= ? THEN 'failed' ELSE 'pending' END,
       error = ?, lease_owner = NULL, lease_expires_at = NULL
     WHERE batch_id = ? AND idx = ? AND state = 'running' AND lease_owner = ?
     RETURNING state`,
  );
  const release = db.prepare(
    `UPDATE deerflow_batch_items SET state = 'pending', attempts = attempts - 1, lease_owner = NULL, lease_expires_at = NULL
     WHERE batch_id = ? AND state = 'running' AND lease_owner = ?`,
  );
  const expire = db.prepare(
    "UPDATE deerflow_batch_items SET lease_expires_at = 0 WHERE batch_id = ? AND state = 'running' AND lease_owner = ?",
  );
  const holders = db.prepare<[string], { lease_owner: string }>(
    "SELECT DISTINCT lease_owner FROM deerflow_batch_items WHERE batch_id = ? AND state = 'running' AND lease_owner IS NOT NULL",
  );
  const counts = db.prepare<[string], { state: string; n: number }>(
    "SELECT state, count(*) AS n FROM deerflow_batch_items WHERE batch_id = ? GROUP BY state",
  );
  const settled = db.prepare<[string, number, number], SettledRow>(
    `SELECT idx, item, state, attempts, result, error FROM deerflow_batch_items
     WHERE batch_id = ? AND idx > ? AND state IN ('done', 'failed') ORDER BY idx LIMIT ?`,
  );
  const finish = db.prepare("UPDATE deerflow_batches SET finished_at = ? WHERE batch_id = ?");
  const deleteItems = db.prepare(
    "DELETE FROM deerflow_batch_items WHERE batch_id IN (SELECT batch_id FROM deerflow_batches WHERE thread_id = ?)",
  );
  const deleteBatches = db.prepare("DELETE FROM deerflow_batches WHERE thread_id = ?");
  const deleteThread = db.transaction((threadId: string) => {
    deleteItems.run(threadId);
    deleteBatches.run(threadId);
  });

  const open = db.transaction((batch: NewBatch) => {
    const existing = selectBatch.get(batch.threadId, batch.toolCallId);
    if (existing) return { batch: batchFromRow(existing), created: false };
    const { items, ...record } = batch;
    insertBatch.run({ ...record, total: items.length, createdAt: new Date().toISOString() });
    items.forEach((item, index) => insertItem.run(batch.batchId, index, item));
    return { batch: batchFromRow(selectBatch.get(batch.threadId, batch.toolCallId)!), created: true };
  });
  const claim = db.transaction(
    (batchId: string, worker: string, limit: number, now: number, leaseMs: number): ClaimedItem[] => {
      const max = maxAttempts.get(batchId)?.max_attempts ?? 1;
      failExpired.run(LEASE_LOST_ERROR, batchId, now, max);
      return claimRows
        .all(worker, now + leaseMs, batchId, batchId, now, limit)
        .sort((a, b) => a.idx - b.idx)
        .map((row) => ({ index: row.idx, item: row.item, attempt: row.attempts }));
    },
  );
  const failTx = db.transaction((batchId: string, index: number, worker: string, error: string): FailOutcome => {
    const max = maxAttempts.get(batchId)?.max_attempts ?? 1;
    const row = failOne.get(max, error, batchId, index, worker);
    if (!row) return "lost";
    return row.state === "failed" ? "failed" : "retry";
  });

  return {
    find: async (threadId, toolCallId) => {
      const row = selectBatch.get(threadId, toolCallId);
      return row ? batchFromRow(row) : undefined;
    },
    open: async (batch) => open.immediate(batch),
    claim: async (batchId, worker, limit, now, leaseMs) => claim.immediate(batchId, worker, limit, now, leaseMs),
    renew: async (batchId, worker, now, leaseMs) => {
      renew.run(now + leaseMs, batchId, worker);
    },
    complete: async (batchId, index, worker, result) => complete.run(result, batchId, index, worker).changes === 1,
    fail: async (batchId, index, worker, error) => failTx.immediate(batchId, index, worker, error),
    release: async (batchId, worker) => {
      release.run(batchId, worker);
    },
    expire: async (batchId, workers) => {
      for (const worker of workers) expire.run(batchId, worker);
    },
    holders: async (batchId) => holders.all(batchId).map((row) => row.lease_owner),
    counts: async (batchId) => countsOf(counts.all(batchId)),
    settled: async (batchId, afterIndex, limit) => settled.all(batchId, afterIndex, limit).map(settledFromRow),
    deleteThread: async (threadId) => deleteThread.immediate(threadId),
    finish: async (batchId, now) => {
      finish.run(now, batchId);
    },
  };
}

interface ClaimRow {
  idx: number;
  item: string;
  attempts: number;
}

interface SettledRow {
  idx: number;
  item: string;
  state: string;
  attempts: number;
  result: string | null;
  error: string | null;
}

/** A settled row as the results file shows it (shared with the Postgres store). */
export function settledFromRow(row: SettledRow): SettledItem {
  return {
    index: Number(row.idx),
    item: row.item,
    state: row.state === "done" ? "done" : "failed",
    attempts: Number(row.attempts),
    result: row.result,
    error: row.error,
  };
}

/** Counts by state from `state, n` rows (shared with the Postgres store). */
export function countsOf(rows: readonly { state: string; n: number | string }[]): BatchCounts {
  const counts: BatchCounts = { total: 0, pending: 0, running: 0, done: 0, failed: 0 };
  for (const row of rows) {
    const n = Number(row.n);
    counts.total += n;
    if (row.state === "pending" || row.state === "running" || row.state === "done" || row.state === "failed")
      counts[row.state] += n;
  }
  return counts;
}
