/**
 * The batch tables on Postgres (migration 10 of `storage/postgres-database.ts`), so every process of a
 * service sees one batch: claims take rows with `FOR UPDATE SKIP LOCKED`, and completing an item is one
 * `UPDATE` that also checks the claimer still holds it, so a process that lost its lease (and kept
 * working) cannot record an item a second time.
 */
import type pg from "pg";
import { LEASE_LOST_ERROR, batchFromRow, countsOf, settledFromRow } from "./sqlite-store.js";
import type { BatchStore, ClaimedItem, FailOutcome } from "./store.js";

/** Opens the batch store on a migrated database. */
export function openPostgresBatchStore(pool: pg.Pool): BatchStore {
  const one = async <T extends pg.QueryResultRow>(sql: string, params: unknown[]) =>
    (await pool.query<T>(sql, params)).rows;
  const find = async (threadId: string, toolCallId: string) => {
    const [row] = await one<Parameters<typeof batchFromRow>[0]>(
      "SELECT * FROM deerflow_batches WHERE thread_id = $1 AND tool_call_id = $2",
      [threadId, toolCallId],
    );
    return row ? batchFromRow(row) : undefined;
  };
  return {
    find,
    async open(batch) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const { items, ...record } = batch;
        const inserted = await client.query(
          `INSERT INTO deerflow_batches (batch_id, thread_id, tool_call_id, owner, description, template, subagent_type,
             concurrency, max_attempts, total, output_path, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
           ON CONFLICT (thread_id, tool_call_id) DO NOTHING`,
          [
            record.batchId,
            record.threadId,
            record.toolCallId,
            record.owner,
            record.description,
            record.template,
            record.subagentType,
            record.concurrency,
            record.maxAttempts,
            items.length,
            record.outputPath,
            new Date().toISOString(),
          ],
        );
        if (inserted.rowCount === 1) {
          await client.query(
            `INSERT INTO deerflow_batch_items (batch_id, idx, item)
             SELECT $1, ordinality - 1, item FROM unnest($2::text[]) WITH ORDINALITY AS t(item, ordinality)`,
            [record.batchId, items],
          );
        }
        await client.query("COMMIT");
        return { batch: (await find(batch.threadId, batch.toolCallId))!, created: inserted.rowCount === 1 };
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async claim(batchId, worker, limit, now, leaseMs) {
      await pool.query(
        `UPDATE deerflow_batch_items i SET state = 'failed', error = $3, lease_owner = NULL, lease_expires_at = NULL
         FROM deerflow_batches b
         WHERE i.batch_id = $1 AND b.batch_id = i.batch_id AND i.state = 'running' AND i.lease_expires_at <= $2
           AND i.attempts >= b.max_attempts`,
        [batchId, now, LEASE_LOST_ERROR],
      );
      const rows = await one<{ idx: number; item: string; attempts: number }>(
        `UPDATE deerflow_batch_items SET state = 'running', attempts = attempts + 1, lease_owner = $2, lease_expires_at = $3
         WHERE batch_id = $1 AND idx IN (
           SELECT idx FROM deerflow_batch_items
           WHERE batch_id = $1 AND (state = 'pending' OR (state = 'running' AND lease_expires_at <= $4))
           ORDER BY idx LIMIT $5 FOR UPDATE SKIP LOCKED)
         RETURNING idx, item, attempts`,
        [batchId, worker, now + leaseMs, now, limit],
      );
      return rows
        .map((row): ClaimedItem => ({ index: Number(row.idx), item: row.item, attempt: Number(row.attempts) }))
        .sort((a, b) => a.index - b.index);
    },
    async renew(batchId, worker, now, leaseMs) {
      await pool.query(
        "UPDATE deerflow_batch_items SET lease_expires_at = $3 WHERE batch_id = $1 AND state = 'running' AND lease_owner = $2",
        [batchId, worker, now + leaseMs],
      );
    },
    async complete(batchId, index, worker, result) {
      const done = await pool.query(
        `UPDATE deerflow_batch_items SET state = 'done', result = $4, error = NULL, lease_owner = NULL, lease_expires_at = NULL
         WHERE batch_id = $1 AND idx = $2 AND state = 'running' AND lease_owner = $3`,
        [batchId, index, worker, result],
      );
      return done.rowCount === 1;
    },
    async fail(batchId, index, worker, error): Promise<FailOutcome> {
      const [row] = await one<{ state: string }>(
        `UPDATE deerflow_batch_items i
         SET state = CASE WHEN i.attempts >= b.max_attempts THEN 'failed' ELSE 'pending' END,
           error = $4, lease_owner = NULL, lease_expires_at = NULL
         FROM deerflow_batches b
         WHERE i.batch_id = $1 AND b.batch_id = i.batch_id AND i.idx = $2 AND i.state = 'running' AND i.lease_owner = $3
         RETURNING i.state`,
        [batchId, index, worker, error],
      );
      if (!row) return "lost";
      return row.state === "failed" ? "failed" : "retry";
    },
    async release(batchId, worker) {
      await pool.query(
        `UPDATE deerflow_batch_items SET state = 'pending', attempts = attempts - 1, lease_owner = NULL, lease_expires_at = NULL
         WHERE batch_id = $1 AND state = 'running' AND lease_owner = $2`,
        [batchId, worker],
      );
    },
    async expire(batchId, workers) {
      await pool.query(
        "UPDATE deerflow_batch_items SET lease_expires_at = 0 WHERE batch_id = $1 AND state = 'running' AND lease_owner = ANY($2::text[])",
        [batchId, [...workers]],
      );
    },
    async holders(batchId) {
      const rows = await one<{ lease_owner: string }>(
        "SELECT DISTINCT lease_owner FROM deerflow_batch_items WHERE batch_id = $1 AND state = 'running' AND lease_owner IS NOT NULL",
        [batchId],
      );
      return rows.map((row) => row.lease_owner);
    },
    async counts(batchId) {
      return countsOf(
        await one<{ state: string; n: string }>(
          "SELECT state, count(*) AS n FROM deerflow_batch_items WHERE batch_id = $1 GROUP BY state",
          [batchId],
        ),
      );
    },
    async settled(batchId, afterIndex, limit) {
      const rows = await one<Parameters<typeof settledFromRow>[0]>(
        `SELECT idx, item, state, attempts, result, error FROM deerflow_batch_items
         WHERE batch_id = $1 AND idx > $2 AND state IN ('done', 'failed') ORDER BY idx LIMIT $3`,
        [batchId, afterIndex, limit],
      );
      return rows.map(settledFromRow);
    },
    async deleteThread(threadId) {
      // The items go with their batch (ON DELETE CASCADE).
      await pool.query("DELETE FROM deerflow_batches WHERE thread_id = $1", [threadId]);
    },
    async finish(batchId, now) {
      await pool.query("UPDATE deerflow_batches SET finished_at = $2 WHERE batch_id = $1", [batchId, now]);
    },
  };
}
