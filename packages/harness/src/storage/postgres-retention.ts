/**
 * Checkpoint retention on Postgres: the same policies, the same choice of kept checkpoints and the same
 * re-pointing of their parent links as the SQLite pruner (`planPrune`), over
 * `@langchain/langgraph-checkpoint-postgres`'s tables.
 *
 * That checkpointer stores channel values apart from checkpoints: `checkpoint_blobs` holds one row per
 * channel version, and a checkpoint names the versions it sees in `checkpoint.channel_versions`. So a
 * prune deletes the dropped checkpoints and their pending writes, re-points the kept ones whose parent
 * went and deletes the blobs no remaining checkpoint of the thread names, all in one statement. One
 * transaction per thread, holding a per-thread advisory lock so two pruners of the same thread (two
 * servers, a CLI prune beside a worker) take turns. Postgres reuses the freed space itself (autovacuum),
 * so there is no vacuum step; the report counts the bytes the deleted rows took (`pg_column_size`).
 * The transaction is two round trips (`postgres-batch.ts`): the lock and the read, then the delete and
 * the commit. A caller can add a guard, checked in the first round trip: when it is false nothing is
 * removed (the server's worker passes its run's fence, so an executor that lost its run prunes nothing).
 */
import type pg from "pg";
import { inlineParams, queryBatch, sqlLiteral } from "./postgres-batch.js";
import {
  type CheckpointPruner,
  type PruneGuard,
  type PruneReport,
  planPrune,
  type RetentionPolicy,
} from "./retention.js";

/** Any number the per-thread prune lock can be told apart by ("DFPR" in ASCII). */
const PRUNE_LOCK = 0x44465052;

/**
 * The Postgres pruner. Subgraph namespaces are left as they are.
 *
 * @example
 * const pruner = createPostgresPruner(database.pool);
 * await pruner.pruneThread("t1", "runs");
 */
export function createPostgresPruner(pool: pg.Pool): CheckpointPruner {
  return {
    async pruneThread(threadId, policy, guard) {
      const none: PruneReport = { threads: 0, checkpoints: 0, writes: 0, blobs: 0, bytes: 0 };
      if (policy === "all") return none;
      const client = await pool.connect();
      try {
        try {
          // Ends with the transaction committed.
          return await pruneIn(client, threadId, policy, guard);
        } catch (error) {
          await client.query("ROLLBACK").catch(() => {});
          // Never set up (no checkpoint table yet): nothing to prune.
          if ((error as { code?: string }).code === "42P01") return none;
          throw error;
        }
      } finally {
        client.release();
      }
    },
  };
}

async function pruneIn(
  client: pg.PoolClient,
  threadId: string,
  policy: RetentionPolicy,
  guard: PruneGuard | undefined,
): Promise<PruneReport> {
  const thread = sqlLiteral(threadId);
  // Checkpoint ids are time-ordered (UUIDv6); the metadata as text, as the shared chooser reads it. The
  // guard, if any, is checked in the same round trip, after the lock.
  const results = await queryBatch(client, [
    "BEGIN",
    `SELECT pg_advisory_xact_lock(${PRUNE_LOCK}, hashtext(${thread}))`,
    ...(guard ? [`SELECT (${inlineParams(guard.sql, guard.params as string[])}) AS held`] : []),
    `SELECT checkpoint_id, parent_checkpoint_id, metadata::text AS metadata FROM checkpoints WHERE thread_id = ${thread} AND checkpoint_ns = '' ORDER BY checkpoint_id`,
  ]);
  const checked = guard ? { guard: results[2]!.rows[0]?.held ? ("held" as const) : ("lost" as const) } : {};
  if (checked.guard === "lost") {
    await client.query("ROLLBACK");
    return { threads: 0, checkpoints: 0, writes: 0, blobs: 0, bytes: 0, ...checked };
  }
  const rows = results.at(-1)!.rows as {
    checkpoint_id: string;
    parent_checkpoint_id: string | null;
    metadata: string;
  }[];
  const { keep, relink } = planPrune(rows, policy);
  const drop = rows.map((row) => row.checkpoint_id).filter((id) => !keep.has(id));
  if (drop.length === 0) {
    await client.query("COMMIT");
    return { threads: 0, checkpoints: 0, writes: 0, blobs: 0, bytes: 0, ...checked };
  }
  // One statement: every part reads the snapshot from before it, so the blobs still named are those of
  // the checkpoints not dropped. The commit goes with it.
  const [result] = await queryBatch(client, [
    inlineParams(
      `WITH gone_checkpoints AS (
       DELETE FROM checkpoints c WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id = ANY($2)
       RETURNING pg_column_size(c.*) AS size
     ), gone_writes AS (
       DELETE FROM checkpoint_writes w WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id = ANY($2)
       RETURNING pg_column_size(w.*) AS size
     ), relinked AS (
       UPDATE checkpoints c SET parent_checkpoint_id = v.parent FROM unnest($3::text[], $4::text[]) AS v(id, parent)
       WHERE c.thread_id = $1 AND c.checkpoint_ns = '' AND c.checkpoint_id = v.id
     ), gone_blobs AS (
       DELETE FROM checkpoint_blobs b WHERE b.thread_id = $1 AND b.checkpoint_ns = ''
         AND (b.channel, b.version) NOT IN (
           SELECT v.key, v.value FROM checkpoints c, jsonb_each_text(c.checkpoint -> 'channel_versions') v
           WHERE c.thread_id = $1 AND c.checkpoint_ns = '' AND c.checkpoint_id <> ALL($2) AND v.value IS NOT NULL)
       RETURNING pg_column_size(b.*) AS size
     )
     SELECT (SELECT count(*) FROM gone_checkpoints)::int AS checkpoints, (SELECT count(*) FROM gone_writes)::int AS writes,
       (SELECT count(*) FROM gone_blobs)::int AS blobs,
       (SELECT COALESCE(sum(size), 0) FROM (SELECT size FROM gone_checkpoints UNION ALL SELECT size FROM gone_writes
         UNION ALL SELECT size FROM gone_blobs) gone)::float8 AS bytes`,
      [threadId, drop, [...relink.keys()], [...relink.values()]],
    ),
    "COMMIT",
  ]);
  return {
    threads: 1,
    ...(result!.rows[0] as { checkpoints: number; writes: number; blobs: number; bytes: number }),
    ...checked,
  };
}
