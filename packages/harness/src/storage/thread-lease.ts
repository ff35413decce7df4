/**
 * One run per thread at a time, across processes. Two `deerflow run --thread T` started together would
 * both read the same checkpoint, both run tools, and the later write would silently drop the other
 * turn's tool call and answer although its side effects happened. A lease row in the SQLite file beside
 * the checkpoints (`{home}/checkpoints.sqlite`, table `thread_leases`) says who runs the thread; every
 * process (the CLI today, the server's run queue later) takes it before a run and releases it after.
 *
 * The holder renews the lease with a heartbeat; a lease whose holder stopped renewing (expired), or
 * whose holder is a dead process on this host (a crash or SIGKILL), is taken over. On Postgres the
 * same leases live in the database instead (postgres-thread-lease.ts), so processes on other machines
 * are kept apart too.
 */
import { mkdirSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { HarnessError } from "../errors.js";
import { storageError } from "./checkpointer.js";

/** Who holds a thread's lease. Times are epoch milliseconds. */
export interface LeaseHolder {
  threadId: string;
  pid: number;
  host: string;
  since: number;
  expires: number;
}

/**
 * A held lease. `release()` is idempotent; the heartbeat stops with it. It need not be awaited: the
 * same leases object's next `acquire` of the thread waits for it (Postgres releases asynchronously).
 */
export interface ThreadLease {
  readonly threadId: string;
  release(): void | Promise<void>;
}

/** Per-thread leases on one store. */
export interface ThreadLeases {
  /**
   * Takes the thread's lease, waiting up to `waitMs` (default 0) for the holder to finish. Throws
   * `ThreadBusyError` when it stays busy, or when `signal` aborts the wait.
   */
  acquire(threadId: string, options?: { waitMs?: number; signal?: AbortSignal }): Promise<ThreadLease>;
  /** The current live holder, or null when the thread is free (or its lease is stale). */
  holder(threadId: string): Promise<LeaseHolder | null>;
  /** Releases the leases still held; on Postgres the promise settles once they are deleted. */
  close(): void | Promise<void>;
}

/**
 * How long a lease lives without a heartbeat in a service on Postgres: DEER_FLOW_RUN_LEASE_MS, default
 * 30 s. One number for a claimed run and for its thread's lease, so that after a kill -9 on another host
 * the re-queued run is not then kept waiting on the thread for longer than the run itself was.
 *
 * @example
 * runLeaseMs({ DEER_FLOW_RUN_LEASE_MS: "5000" }); // 5000
 */
export function runLeaseMs(env: Record<string, string | undefined> = process.env): number {
  const value = Number(env.DEER_FLOW_RUN_LEASE_MS);
  return Number.isFinite(value) && value >= 100 ? value : 30_000;
}

/** Timing and identity of this process's leases (tests shorten them). */
export interface ThreadLeaseOptions {
  /** How long a lease lives without a heartbeat. Default 30 s (Postgres: `runLeaseMs()`). */
  ttlMs?: number;
  /** How often the holder renews. Default a third of `ttlMs`. */
  heartbeatMs?: number;
  /** How often a waiting caller looks again. Default 250 ms. */
  pollMs?: number;
  pid?: number;
  host?: string;
}

/** The thread is being run by another process (or another run in this one). */
export class ThreadBusyError extends HarnessError {
  readonly holder: LeaseHolder;

  constructor(holder: LeaseHolder) {
    super(
      "thread_busy",
      `Thread ${holder.threadId} is busy (pid ${holder.pid}${holder.host === hostname() ? "" : ` on ${holder.host}`}, since ${formatTime(holder.since)}). ` +
        "Wait for that run to finish (or stop it), or pass --wait SECONDS to wait for it.",
    );
    this.name = "ThreadBusyError";
    this.holder = holder;
  }
}

/**
 * Opens the lease table in the given SQLite file (creating it if needed).
 *
 * @example
 * const leases = openThreadLeases(checkpointsPath(home));
 * const lease = await leases.acquire("t1", { waitMs: 10_000 });
 * try { await agent.invoke(input, { configurable: { thread_id: "t1" } }); } finally { lease.release(); }
 */
export function openThreadLeases(file: string, options: ThreadLeaseOptions = {}): ThreadLeases {
  const ttlMs = options.ttlMs ?? 30_000;
  const heartbeatMs = options.heartbeatMs ?? Math.max(50, Math.floor(ttlMs / 3));
  const pollMs = options.pollMs ?? 250;
  const pid = options.pid ?? process.pid;
  const host = options.host ?? hostname();
  let db: Database.Database;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    db = new Database(file);
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    db.exec(
      "CREATE TABLE IF NOT EXISTS thread_leases (thread_id TEXT PRIMARY KEY, owner_pid INTEGER NOT NULL, host TEXT NOT NULL, token TEXT NOT NULL, since INTEGER NOT NULL, expires INTEGER NOT NULL)",
    );
  } catch (error) {
    throw storageError(file, error);
  }
  const select = db.prepare(
    "SELECT thread_id, owner_pid, host, token, since, expires FROM thread_leases WHERE thread_id = ?",
  );
  const upsert = db.prepare(
    "INSERT OR REPLACE INTO thread_leases (thread_id, owner_pid, host, token, since, expires) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const renew = db.prepare("UPDATE thread_leases SET expires = ? WHERE thread_id = ? AND token = ?");
  const remove = db.prepare("DELETE FROM thread_leases WHERE thread_id = ? AND token = ?");
  const held = new Set<{ release(): void }>();

  type Row = { thread_id: string; owner_pid: number; host: string; token: string; since: number; expires: number };
  const live = (row: Row | undefined, now: number): Row | undefined => {
    if (!row) return undefined;
    if (row.expires <= now) return undefined;
    if (row.host === host && row.owner_pid !== pid && !processAlive(row.owner_pid)) return undefined;
    return row;
  };
  const toHolder = (row: Row): LeaseHolder => ({
    threadId: row.thread_id,
    pid: row.owner_pid,
    host: row.host,
    since: row.since,
    expires: row.expires,
  });

  // One immediate transaction: read the row and claim it only if nobody live holds it.
  const tryClaim = db.transaction((threadId: string, token: string): Row | null => {
    const now = Date.now();
    const current = live(select.get(threadId) as Row | undefined, now);
    if (current) return current;
    upsert.run(threadId, pid, host, token, now, now + ttlMs);
    return null;
  });

  return {
    async acquire(threadId, acquireOptions = {}) {
      const deadline = Date.now() + Math.max(0, acquireOptions.waitMs ?? 0);
      const token = randomUUID();
      for (;;) {
        const busy = tryClaim.immediate(threadId, token);
        if (!busy) break;
        if (Date.now() >= deadline || acquireOptions.signal?.aborted) throw new ThreadBusyError(toHolder(busy));
        await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now())), acquireOptions.signal);
      }
      const heartbeat = setInterval(() => {
        try {
          renew.run(Date.now() + ttlMs, threadId, token);
        } catch {
          // A locked or closed database: the next beat tries again; expiry is the safety net.
        }
      }, heartbeatMs);
      heartbeat.unref();
      let released = false;
      const lease = {
        threadId,
        release() {
          if (released) return;
          released = true;
          clearInterval(heartbeat);
          held.delete(lease);
          if (db.open) remove.run(threadId, token);
        },
      };
      held.add(lease);
      return lease;
    },
    async holder(threadId) {
      const row = live(select.get(threadId) as Row | undefined, Date.now());
      return row ? toHolder(row) : null;
    },
    close() {
      for (const lease of [...held]) lease.release();
      if (db.open) db.close();
    },
  };
}

/** True when a process with this pid exists on this host (EPERM: it exists but is not ours). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Waits `ms`, or less when `signal` aborts (shared with the Postgres leases). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

function formatTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace("T", " ").slice(0, 19) + " UTC";
}
