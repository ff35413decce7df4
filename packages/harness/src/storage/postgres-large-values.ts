/**
 * Large values stored once on Postgres: the `large_values` table (migration 4) behind the same
 * serializer as SQLite's, so a big tool result is not written again with every new version of the
 * thread's `messages` channel (PostgresSaver stores one blob per channel version, each a full copy).
 *
 * A value's `used_at` is refreshed whenever a checkpoint stores it again, and `deerflow threads prune`
 * collects only values no checkpoint or pending write refers to that were not used for an hour, so a
 * checkpoint another process is writing at that moment never loses its value.
 *
 * The checkpointer serializes a checkpoint (or a task's writes) inside `deferLargeValues`: the values it
 * stores then are collected instead of written, and go into the checkpoint's own statement, so storing
 * them costs no round trip of its own. Messages the serializer stored are remembered as stored only once
 * that statement commits (`whenStored`).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type pg from "pg";
import type { LargeValueTable } from "./large-values.js";

/** Values collected for one statement, and what to do once it commits. */
export interface DeferredLargeValues {
  values: Map<string, string>;
  onStored: (() => void)[];
}

const deferred = new AsyncLocalStorage<DeferredLargeValues>();

/** Runs `work` (a serialization) with its large-value puts collected; returns its result and what was collected. */
export async function deferLargeValues<T>(work: () => Promise<T>): Promise<[T, DeferredLargeValues]> {
  const collected: DeferredLargeValues = { values: new Map(), onStored: [] };
  return [await deferred.run(collected, work), collected];
}

/** The `large_values` table of a migrated database (an unmigrated one reads as holding nothing). */
export function postgresLargeValues(pool: pg.Pool): LargeValueTable {
  return {
    writable: true,
    where: "the large_values table of the Postgres database",
    async put(values) {
      const collecting = deferred.getStore();
      if (collecting) {
        for (const [hash, body] of values) collecting.values.set(hash, body);
        return;
      }
      // In hash order, as the saver's statements take them (postgres-saver.ts): no two statements lock
      // the same rows in opposite orders.
      const sorted = [...values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      await pool.query(
        `INSERT INTO large_values (hash, body) SELECT * FROM unnest($1::text[], $2::text[]) AS v(hash, body)
         ORDER BY v.hash ON CONFLICT (hash) DO UPDATE SET used_at = now()`,
        [sorted.map(([hash]) => hash), sorted.map(([, body]) => body)],
      );
    },
    whenStored(fn) {
      const collecting = deferred.getStore();
      if (collecting) collecting.onStored.push(fn);
      else fn();
    },
    async get(hashes) {
      try {
        const result = await pool.query<{ hash: string; body: string }>(
          "SELECT hash, body FROM large_values WHERE hash = ANY($1)",
          [hashes],
        );
        return new Map(result.rows.map((row) => [row.hash, row.body]));
      } catch (error) {
        if ((error as { code?: string }).code === "42P01") return new Map();
        throw error;
      }
    },
  };
}

/**
 * Deletes stored values no checkpoint blob or pending write refers to and that no checkpoint stored
 * within `graceSeconds` (default an hour). A full scan: `deerflow threads prune` runs it. Returns the
 * number of values and the bytes they took.
 */
export async function collectPostgresLargeValues(
  pool: pg.Pool,
  graceSeconds = 3600,
): Promise<{ values: number; bytes: number }> {
  try {
    const result = await pool.query<{ size: number }>(
      `DELETE FROM large_values v WHERE v.used_at < now() - make_interval(secs => $1)
         AND NOT EXISTS (SELECT 1 FROM checkpoint_blobs b WHERE position(convert_to(v.hash, 'UTF8') IN b.blob) > 0)
         AND NOT EXISTS (SELECT 1 FROM checkpoint_writes w WHERE position(convert_to(v.hash, 'UTF8') IN w.blob) > 0)
         AND NOT EXISTS (SELECT 1 FROM large_values m WHERE m.hash <> v.hash AND position(v.hash IN m.body) > 0)
       RETURNING pg_column_size(v.*) AS size`,
      [graceSeconds],
    );
    return { values: result.rowCount ?? 0, bytes: result.rows.reduce((sum, row) => sum + Number(row.size), 0) };
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") return { values: 0, bytes: 0 };
    throw error;
  }
}
