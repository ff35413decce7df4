/**
 * The per-thread lease (thread-lease.ts) in Postgres, for `database.backend: postgres`. In the SQLite
 * file a lease only keeps apart processes that share that file; a CLI run on machine A and a server run
 * on machine B share only the database, so their lease must live there (table `thread_leases`, created
 * by migration 1).
 *
 * A claim is one statement: insert the row, or take over the existing one only if it has expired. Times
 * come from the database's clock, so machines with skewed clocks agree on expiry. The holder renews
 * with a heartbeat. A holder on another host cannot be checked, so a stale lease is taken over by expiry
 * only (after DEER_FLOW_RUN_LEASE_MS, as a claimed run); one whose holder is a dead process on this host
 * is freed at once, as with SQLite.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type pg from "pg";
import {
  type LeaseHolder,
  processAlive,
  runLeaseMs,
  sleep,
  ThreadBusyError,
  type ThreadLeaseOptions,
  type ThreadLeases,
} from "./thread-lease.js";

/** The database clock in epoch milliseconds. */
const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

type Row = { thread_id: string; owner_pid: number; host: string; token: string; since: string; expires: string };

/**
 * Per-thread leases in the `thread_leases` table of a migrated DeerFlow.ts database.
 *
 * @example
 * const leases = openPostgresThreadLeases(harness.setup.postgres.pool);
 * const lease = await leases.acquire("t1", { waitMs: 10_000 });
 * try { ... } finally { lease.release(); }
 */
export function openPostgresThreadLeases(pool: pg.Pool, options: ThreadLeaseOptions = {}): ThreadLeases {
  const ttlMs = options.ttlMs ?? runLeaseMs();
  const heartbeatMs = options.heartbeatMs ?? Math.max(50, Math.floor(ttlMs / 3));
  const pollMs = options.pollMs ?? 250;
  const pid = options.pid ?? process.pid;
  const host = options.host ?? hostname();
  const held = new Set<{ release(): Promise<void> }>();
  // Releases still being written, per thread: this object's next acquire of the thread waits for them.
  const releasing = new Map<string, Promise<void>>();

  const toHolder = (row: Row): LeaseHolder => ({
    threadId: row.thread_id,
    pid: Number(row.owner_pid),
    host: row.host,
    since: Number(row.since),
    expires: Number(row.expires),
  });

  /** Claims the thread, or returns the live holder's row. */
  const tryClaim = async (threadId: string, token: string): Promise<Row | null> => {
    for (;;) {
      const claimed = await pool.query(
        `INSERT INTO thread_leases (thread_id, owner_pid, host, token, since, expires)
         VALUES ($1, $2, $3, $4, ${NOW_MS}, ${NOW_MS} + $5)
         ON CONFLICT (thread_id) DO UPDATE SET owner_pid = EXCLUDED.owner_pid, host = EXCLUDED.host, token = EXCLUDED.token, since = EXCLUDED.since, expires = EXCLUDED.expires
         WHERE thread_leases.expires <= ${NOW_MS}
         RETURNING token`,
        [threadId, pid, host, token, ttlMs],
      );
      if (claimed.rowCount) return null;
      const current = (
        await pool.query<Row>(
          "SELECT thread_id, owner_pid, host, token, since, expires FROM thread_leases WHERE thread_id = $1",
          [threadId],
        )
      ).rows[0];
      if (!current) continue; // Released in between: claim again.
      if (current.host === host && Number(current.owner_pid) !== pid && !processAlive(Number(current.owner_pid))) {
        // A crashed process on this machine: free its lease (only that exact lease) and claim again.
        await pool.query("DELETE FROM thread_leases WHERE thread_id = $1 AND token = $2", [threadId, current.token]);
        continue;
      }
      return current;
    }
  };

  return {
    async acquire(threadId, acquireOptions = {}) {
      await releasing.get(threadId);
      const deadline = Date.now() + Math.max(0, acquireOptions.waitMs ?? 0);
      const token = randomUUID();
      for (;;) {
        const busy = await tryClaim(threadId, token);
        if (!busy) break;
        if (Date.now() >= deadline || acquireOptions.signal?.aborted) throw new ThreadBusyError(toHolder(busy));
        await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now())), acquireOptions.signal);
      }
      const heartbeat = setInterval(() => {
        pool
          .query(`UPDATE thread_leases SET expires = ${NOW_MS} + $1 WHERE thread_id = $2 AND token = $3`, [
            ttlMs,
            threadId,
            token,
          ])
          .catch(() => {
            // The database is away: the next beat tries again; expiry is the safety net.
          });
      }, heartbeatMs);
      heartbeat.unref();
      let released: Promise<void> | undefined;
      const lease = {
        threadId,
        release(): Promise<void> {
          if (released) return released;
          clearInterval(heartbeat);
          held.delete(lease);
          const done: Promise<void> = pool
            .query("DELETE FROM thread_leases WHERE thread_id = $1 AND token = $2", [threadId, token])
            .then(
              () => {},
              () => {}, // Unreachable database: the lease expires by itself.
            )
            .finally(() => {
              if (releasing.get(threadId) === done) releasing.delete(threadId);
            });
          released = done;
          releasing.set(threadId, done);
          return done;
        },
      };
      held.add(lease);
      return lease;
    },
    async holder(threadId) {
      const row = (
        await pool.query<Row>(
          `SELECT thread_id, owner_pid, host, token, since, expires FROM thread_leases WHERE thread_id = $1 AND expires > ${NOW_MS}`,
          [threadId],
        )
      ).rows[0];
      if (!row) return null;
      if (row.host === host && Number(row.owner_pid) !== pid && !processAlive(Number(row.owner_pid))) return null;
      return toHolder(row);
    },
    async close() {
      await Promise.all([...held].map((lease) => lease.release()));
      await Promise.all([...releasing.values()]);
    },
  };
}
