/**
 * The Postgres ThreadStore and RunStore (tables `server_threads`, `server_runs`, created by the harness's
 * migrations), shared by every server process on the database. A run's strategy check and insert hold a
 * per-thread transaction lock, so two processes taking runs for one thread see each other; the partial
 * unique index on running runs is what finally makes "one running run per thread" hold. A run with a
 * quota also holds its owner's lock (taken first, so the two locks never wait on each other in a cycle)
 * while the owner's runs are counted and the new one is inserted: a user's last slot goes to one process.
 * That transaction is two round trips without a quota (the locks and the read, then the writes and the
 * commit, each a batch of statements: harness `postgres-batch.ts`).
 * A thread search is one statement: its page in index order with the total counted beside it.
 */
import { inlineParams, queryBatch, sqlLiteral, inTransaction as transaction } from "@deerflow/harness";
import type pg from "pg";
import type { CheckpointAdmin } from "./worker.js";
import {
  runFromRow,
  type StoredRunRow,
  type StoredThreadRow,
  threadFieldsFromRow,
  threadFromRow,
  threadSearchColumns,
  threadSearchOrder,
} from "./store-rows.js";
import { threadJsonFields, threadJsonSql } from "./thread-json.js";
import { ThreadBusyError } from "./types.js";
import type { RunQuota, RunRecord, RunStore, ThreadPatch, ThreadQuery, ThreadRecord, ThreadStore } from "./types.js";

const now = () => new Date().toISOString();
/** How long a rollback waits for an aborted graph's in-flight checkpoint writes before its second pass. */
const ROLLBACK_SETTLE_MS = 250;
/** Most passes a rollback makes while late checkpoint writes keep arriving. */
const ROLLBACK_MAX_PASSES = 20;

/** A `server_runs` row as pg returns it (JSONB already parsed). */
export type RunRow = StoredRunRow<unknown>;

/** JSONB columns come back parsed. */
const asParsed = (value: unknown) => value;

/** The record of a run row. */
export const toRun = (row: RunRow): RunRecord => runFromRow(row, asParsed);
const toThread = (row: StoredThreadRow<unknown>): ThreadRecord => threadFromRow(row, asParsed);

const RUN_COLUMNS =
  "run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, multitask_strategy, kwargs";

/** The thread store on Postgres. */
export function createPostgresThreadStore(pool: pg.Pool): ThreadStore {
  const filter = (
    query: Omit<ThreadQuery, "limit" | "offset" | "sort_by" | "sort_order" | "fields">,
    params: unknown[],
  ): string => {
    const where: string[] = [];
    if (query.ids) where.push(`thread_id = ANY($${params.push(query.ids)})`);
    if (query.status) where.push(`status = $${params.push(query.status)}`);
    if (query.owner === null) where.push("owner IS NULL");
    else if (query.owner !== undefined) where.push(`owner = $${params.push(query.owner)}`);
    if (query.metadata) where.push(`metadata @> $${params.push(JSON.stringify(query.metadata))}::jsonb`);
    if (query.values)
      where.push(`COALESCE("values", '{}'::jsonb) @> $${params.push(JSON.stringify(query.values))}::jsonb`);
    return where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
  };
  return {
    async create(threadId, metadata, ifExists, owner = null) {
      void ifExists;
      const at = now();
      const inserted = await pool.query(
        `INSERT INTO server_threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, "values", interrupts, error, owner)
         VALUES ($1, $2, $2, $2, $3, 'idle', NULL, '{}', NULL, $4) ON CONFLICT (thread_id) DO NOTHING RETURNING *`,
        [threadId, at, JSON.stringify(metadata), owner],
      );
      if (inserted.rows[0]) return { thread: toThread(inserted.rows[0]), created: true };
      const existing = await pool.query("SELECT * FROM server_threads WHERE thread_id = $1", [threadId]);
      return { thread: toThread(existing.rows[0]), created: false };
    },
    async get(threadId) {
      const result = await pool.query("SELECT * FROM server_threads WHERE thread_id = $1", [threadId]);
      return result.rows[0] ? toThread(result.rows[0]) : null;
    },
    async search(query) {
      const params: unknown[] = [];
      const where = filter(query, params);
      // The count is a subquery run once beside the page (not a window over every match), so the page
      // itself stops after `limit` rows of the index and both come back in one round trip.
      const result = await pool.query<Partial<StoredThreadRow<unknown>> & { total?: string }>(
        `SELECT ${threadSearchColumns(query.fields)}, (SELECT count(*) FROM server_threads ${where}) AS total
         FROM server_threads ${where} ${threadSearchOrder(query)} LIMIT $${params.push(query.limit)} OFFSET $${params.push(query.offset)}`,
        params,
      );
      const first = result.rows[0];
      // No row: nothing matches, or the offset is past the end (then the count is asked on its own).
      const total = first ? Number(first.total) : query.offset === 0 ? 0 : await this.count(query);
      return { threads: result.rows.map(({ total: _total, ...row }) => threadFieldsFromRow(row, asParsed)), total };
    },
    async searchJson(query, select) {
      const params: unknown[] = [];
      const where = filter(query, params);
      // As `search`, with each thread written as JSON text by Postgres (its JSONB rendered as text, not parsed here).
      const result = await pool.query<{ thread: string; total: string }>(
        `SELECT ${threadJsonSql(threadJsonFields(select), "postgres")} AS thread, (SELECT count(*) FROM server_threads ${where}) AS total
         FROM server_threads ${where} ${threadSearchOrder(query)} LIMIT $${params.push(query.limit)} OFFSET $${params.push(query.offset)}`,
        params,
      );
      const first = result.rows[0];
      const total = first ? Number(first.total) : query.offset === 0 ? 0 : await this.count(query);
      return { threads: result.rows.map((row) => row.thread), total };
    },
    async count(query) {
      const params: unknown[] = [];
      const result = await pool.query(`SELECT count(*) AS n FROM server_threads ${filter(query, params)}`, params);
      return Number(result.rows[0].n);
    },
    async patch(threadId, patch) {
      const params: unknown[] = [threadId, now()];
      const result = await pool.query(
        `UPDATE server_threads SET ${threadSets(patch, params).join(", ")} WHERE thread_id = $1 RETURNING *`,
        params,
      );
      return result.rows[0] ? toThread(result.rows[0]) : null;
    },
    async delete(threadId, options = {}) {
      return transaction(pool, async (client) => {
        if (!options.keepRuns) await client.query("DELETE FROM server_runs WHERE thread_id = $1", [threadId]);
        return ((await client.query("DELETE FROM server_threads WHERE thread_id = $1", [threadId])).rowCount ?? 0) > 0;
      });
    },
  };
}

/**
 * The SET items of a thread patch; `params` holds the thread id and the time as `$1` and `$2` and gets
 * the patch's values. A status given as SQL (`statusSql`) is an expression instead of a value.
 */
function threadSets(patch: ThreadPatch, params: unknown[], statusSql?: string): string[] {
  const sets = ["updated_at = $2"];
  if (patch.metadata) sets.push(`metadata = metadata || $${params.push(JSON.stringify(patch.metadata))}::jsonb`);
  if (statusSql) sets.push(`status = ${statusSql}`);
  else if (patch.status) sets.push(`status = $${params.push(patch.status)}`);
  if (patch.values !== undefined)
    sets.push(
      `"values" = $${params.push(patch.values === null ? null : JSON.stringify(patch.values))}::jsonb`,
      "state_updated_at = $2",
    );
  if (patch.interrupts) sets.push(`interrupts = $${params.push(JSON.stringify(patch.interrupts))}::jsonb`);
  if (patch.error !== undefined) sets.push(`error = $${params.push(patch.error)}`);
  return sets;
}

/** First key of the per-user quota locks ("DFUQ" in ASCII); the second is the user id's hash. */
const QUOTA_LOCK = 0x44465551;

/**
 * Checks a run quota and counts the run, inside the insert's transaction and under the user's lock: the
 * lock holder before us committed its run row before letting go, so the count includes it.
 */
async function admitUnderLock(client: pg.PoolClient, quota: RunQuota, superseded: number): Promise<void> {
  const active = await client.query<{ n: string }>(
    "SELECT count(*) AS n FROM server_runs r JOIN server_threads t ON t.thread_id = r.thread_id WHERE t.owner = $1 AND r.status IN ('pending', 'running')",
    [quota.owner],
  );
  const usage = await client.query<{ runs: number; tokens: string }>(
    "SELECT runs, tokens FROM deerflow_usage WHERE user_id = $1 AND day = $2",
    [quota.owner, quota.day],
  );
  quota.check({
    activeRuns: Number(active.rows[0]!.n) - superseded,
    runsToday: Number(usage.rows[0]?.runs ?? 0),
    tokensToday: Number(usage.rows[0]?.tokens ?? 0),
  });
  await client.query(
    `INSERT INTO deerflow_usage (user_id, day, runs) VALUES ($1, $2, 1)
     ON CONFLICT (user_id, day) DO UPDATE SET runs = deerflow_usage.runs + 1`,
    [quota.owner, quota.day],
  );
}

/** What the run store tells the queue (postgres-services.ts wires them). */
export interface RunStoreHooks {
  /** A run was inserted by this process. */
  onInserted?: () => void;
  /**
   * The queue's wake-up, sent by the statements that make a run claimable (an insert, a run leaving
   * `running`) inside themselves; `sent` is called after each, so the queue's own `notify` can skip its
   * NOTIFY right after.
   */
  wake?: { channel: string; payload: string; sent(): void };
}

/** The run store on Postgres. */
export function createPostgresRunStore(pool: pg.Pool, hooks: RunStoreHooks = {}): RunStore {
  const wake = hooks.wake;
  return {
    async insert(run, quota, threadPatch) {
      // Two round trips (postgres-batch): the locks and the thread's in-flight runs, then the writes and
      // the commit; a quota adds its own reads in between.
      const client = await pool.connect();
      try {
        const thread = sqlLiteral(run.thread_id);
        const read = await queryBatch(client, [
          "BEGIN",
          // Serializes a user's admissions across every process; always taken before the thread's lock.
          ...(quota ? [`SELECT pg_advisory_xact_lock(${QUOTA_LOCK}, hashtext(${sqlLiteral(quota.owner)}))`] : []),
          // Serializes strategy decisions per thread across every process.
          `SELECT pg_advisory_xact_lock(hashtext(${thread}))`,
          `SELECT ${RUN_COLUMNS} FROM server_runs WHERE thread_id = ${thread} AND status IN ('pending', 'running') ORDER BY seq`,
        ]);
        const active = (read.at(-1)!.rows as RunRow[]).map(toRun);
        const stopped: RunRecord[] = [];
        const writes: string[] = [];
        if (active.length > 0) {
          if (run.multitask_strategy === "reject") throw new ThreadBusyError(run.thread_id);
          if (run.multitask_strategy === "interrupt" || run.multitask_strategy === "rollback") {
            for (const old of active) {
              if (old.status === "running") stopped.push(old);
              else if (run.multitask_strategy === "rollback")
                writes.push(inlineParams("DELETE FROM server_runs WHERE run_id = $1", [old.run_id]));
              else
                writes.push(
                  inlineParams("UPDATE server_runs SET status = 'interrupted', updated_at = $2 WHERE run_id = $1", [
                    old.run_id,
                    now(),
                  ]),
                );
            }
          }
        }
        if (quota) {
          // The settled pending runs are not counted: they go first.
          if (writes.length > 0) await queryBatch(client, writes.splice(0));
          await admitUnderLock(client, quota, stopped.length);
        }
        writes.push(
          inlineParams(`INSERT INTO server_runs (${RUN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
            run.run_id,
            run.thread_id,
            run.assistant_id,
            run.created_at,
            run.updated_at,
            run.status,
            JSON.stringify(run.metadata),
            run.multitask_strategy,
            JSON.stringify(run.kwargs),
          ]),
          ...(wake ? [`SELECT pg_notify(${sqlLiteral(wake.channel)}, ${sqlLiteral(wake.payload)})`] : []),
          ...(threadPatch ? [patchStatement(run.thread_id, threadPatch)] : []),
          "COMMIT",
        );
        await queryBatch(client, writes);
        hooks.onInserted?.();
        wake?.sent();
        return { superseded: stopped };
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async get(runId) {
      const result = await pool.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM server_runs WHERE run_id = $1`, [runId]);
      return result.rows[0] ? toRun(result.rows[0]) : null;
    },
    async list(threadId, options) {
      const params: unknown[] = [threadId];
      const status = options.status ? `AND status = $${params.push(options.status)}` : "";
      const result = await pool.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM server_runs WHERE thread_id = $1 ${status} ORDER BY seq DESC LIMIT $${params.push(options.limit)} OFFSET $${params.push(options.offset)}`,
        params,
      );
      return result.rows.map(toRun);
    },
    async active(threadId) {
      const result = await pool.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM server_runs WHERE thread_id = $1 AND status IN ('pending', 'running') ORDER BY seq`,
        [threadId],
      );
      return result.rows.map(toRun);
    },
    async update(runId, patch) {
      const params: unknown[] = [runId, now()];
      const sets = ["updated_at = $2"];
      if (patch.status) {
        sets.push(`status = $${params.push(patch.status)}`);
        // A run that leaves `running` no longer has an owner.
        if (patch.status !== "running") sets.push("worker_id = NULL", "lease_expires = NULL");
      }
      if (patch.kwargs)
        sets.push(`kwargs = kwargs || $${params.push(JSON.stringify(stripUndefined(patch.kwargs)))}::jsonb`);
      // A run leaving `running` frees its thread: the queue's wake-up goes with the update.
      const waking = wake && patch.status && patch.status !== "running";
      const update = `UPDATE server_runs SET ${sets.join(", ")} WHERE run_id = $1 RETURNING ${RUN_COLUMNS}`;
      const result = await pool.query<RunRow>(
        waking
          ? `WITH updated AS (${update}) SELECT updated.*, pg_notify($${params.push(wake.channel)}, $${params.push(wake.payload)}) AS woke FROM updated`
          : update,
        params,
      );
      if (waking && result.rows[0]) wake.sent();
      const row = result.rows[0];
      if (!row) return null;
      const { woke: _woke, ...run } = row as RunRow & { woke?: unknown };
      return toRun(run as RunRow);
    },
    async delete(runId) {
      return ((await pool.query("DELETE FROM server_runs WHERE run_id = $1", [runId])).rowCount ?? 0) > 0;
    },
    async settle(runId, end) {
      // One statement: the run's row (behind the owner's condition), then its thread, whose status counts
      // the thread's other active runs in the statement's snapshot (the run itself is left out by id).
      const owner = end.owner ?? { sql: "run_id = $1", params: [runId] };
      const params: unknown[] = [...owner.params];
      const at = `$${params.push(now())}`;
      const status = `$${params.push(end.status)}`;
      const kwargs = `$${params.push(JSON.stringify(stripUndefined(end.kwargs)))}::jsonb`;
      // The thread's SET items, written over $1 (the thread), $2 (the time), $3 (a fixed status) and its own
      // values, then renumbered after the run's parameters.
      const threadParams: unknown[] = [null, null, end.thread.status ?? null];
      const sets = threadSets(
        end.thread,
        threadParams,
        "CASE WHEN $3::text IS NOT NULL THEN $3::text WHEN o.n > 0 THEN 'busy' ELSE 'idle' END",
      );
      const base = params.length;
      const renumber = (sql: string) =>
        sql.replace(/\$(\d+)/g, (_, n: string) => (n === "2" ? at : `$${base + Number(n) - 2}`));
      params.push(...threadParams.slice(2));
      const waking = wake ? `, pg_notify($${params.push(wake.channel)}, $${params.push(wake.payload)}) AS woke` : "";
      const result = await pool.query<{ others: string }>(
        `WITH updated AS (
           UPDATE server_runs SET updated_at = ${at}, status = ${status}, worker_id = NULL, lease_expires = NULL,
             kwargs = kwargs || ${kwargs}
           WHERE ${owner.sql} RETURNING run_id, thread_id
         ), others AS (
           SELECT count(*) AS n FROM server_runs r, updated u
           WHERE r.thread_id = u.thread_id AND r.run_id <> u.run_id AND r.status IN ('pending', 'running')
         ), thread AS (
           UPDATE server_threads SET ${sets.map(renumber).join(", ")} FROM updated u, others o
           WHERE server_threads.thread_id = u.thread_id
         )
         SELECT o.n AS others${waking} FROM updated, others o`,
        params,
      );
      const row = result.rows[0];
      if (!row) return null;
      wake?.sent();
      return { others: Number(row.others) };
    },
    async deleteForThread(threadId) {
      await pool.query("DELETE FROM server_runs WHERE thread_id = $1", [threadId]);
    },
  };
}

/** A thread patch as one statement with its values inlined (for a batch). */
function patchStatement(threadId: string, patch: ThreadPatch): string {
  const params: unknown[] = [threadId, now()];
  const sets = threadSets(patch, params);
  return inlineParams(`UPDATE server_threads SET ${sets.join(", ")} WHERE thread_id = $1`, params as string[]);
}

/** `undefined` values dropped (JSON would drop them too, but `||` must not see them as keys). */
function stripUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined));
}

/** The history archive's tables (migrations 1 and 2) and the columns a thread copy carries over. */
const ARCHIVE_TABLES: Record<string, string> = {
  history_archive: "seq, kind, message_id, payload",
  history_search: "seq, turn, role, text",
};

/**
 * Checkpoint operations on the Postgres checkpointer's tables: rollback removes the checkpoints (and their
 * pending writes) written after the run's start; deleting a thread removes all of them and its history
 * archive, copying a thread copies both, each in one transaction.
 */
export function createPostgresCheckpointAdmin(pool: pg.Pool): CheckpointAdmin {
  return {
    async rollbackCheckpoints(threadId, checkpointId) {
      const remove = () =>
        transaction(pool, async (client) => {
          for (const table of ["checkpoint_writes", "checkpoints"]) {
            // Checkpoint ids are time-ordered (UUIDv6), so "after" is a string comparison.
            if (checkpointId === null) await client.query(`DELETE FROM ${table} WHERE thread_id = $1`, [threadId]);
            else
              await client.query(`DELETE FROM ${table} WHERE thread_id = $1 AND checkpoint_id > $2`, [
                threadId,
                checkpointId,
              ]);
          }
        });
      // An aborted graph can still finish a step or two in the background after its stream stopped, and
      // its checkpoint writes land after a first pass: repeat until the thread stays quiet (bounded).
      let quiet = 0;
      for (let pass = 0; pass < ROLLBACK_MAX_PASSES && quiet < 2; pass += 1) {
        await remove();
        await new Promise((resolve) => setTimeout(resolve, ROLLBACK_SETTLE_MS));
        const later = await pool.query(
          checkpointId === null
            ? "SELECT 1 FROM checkpoints WHERE thread_id = $1 LIMIT 1"
            : "SELECT 1 FROM checkpoints WHERE thread_id = $1 AND checkpoint_id > $2 LIMIT 1",
          checkpointId === null ? [threadId] : [threadId, checkpointId],
        );
        quiet = (later.rowCount ?? 0) === 0 ? quiet + 1 : 0;
      }
      await remove();
    },
    async deleteThreadState(threadId) {
      await transaction(pool, async (client) => {
        for (const table of ["checkpoint_writes", "checkpoint_blobs", "checkpoints", ...Object.keys(ARCHIVE_TABLES)])
          await client.query(`DELETE FROM ${table} WHERE thread_id = $1`, [threadId]);
      });
    },
    async copyThreadState(fromThreadId, toThreadId) {
      await transaction(pool, async (client) => {
        for (const table of ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]) {
          const columns = await tableColumns(client, table);
          const list = columns.filter((column) => column !== "thread_id").join(", ");
          await client.query(
            `INSERT INTO ${table} (thread_id, ${list}) SELECT $1, ${list} FROM ${table} WHERE thread_id = $2`,
            [toThreadId, fromThreadId],
          );
        }
        // The copy's compacted messages stay searchable and shown by its history.
        for (const [table, list] of Object.entries(ARCHIVE_TABLES)) {
          await client.query(
            `INSERT INTO ${table} (thread_id, ${list}) SELECT $1, ${list} FROM ${table} WHERE thread_id = $2`,
            [toThreadId, fromThreadId],
          );
        }
      });
    },
  };
}

/** The columns of one of the checkpointer's tables (its schema belongs to the checkpointer package). */
async function tableColumns(client: pg.PoolClient, table: string): Promise<string[]> {
  const result = await client.query<{ column_name: string }>(
    "SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = current_schema() ORDER BY ordinal_position",
    [table],
  );
  return result.rows.map((row) => row.column_name);
}
