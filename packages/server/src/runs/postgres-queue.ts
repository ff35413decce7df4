/**
 * The Postgres RunQueue: the `server_runs` table is the queue, shared by every process.
 *
 * - Claim: the oldest pending run whose thread has neither a running run nor an older pending one,
 *   taken with `FOR UPDATE SKIP LOCKED` so processes never wait on each other's claims; the partial
 *   unique index on running runs rejects a second running run of a thread if two claims still race.
 * - A claimed run carries a lease token (this process's id plus one per claim, in `worker_id`) and a
 *   lease; a heartbeat renews the leases of the runs it executes. A process that dies stops renewing;
 *   the sweeper (any process) puts its runs back to pending, and the next claim resumes them from the
 *   thread's last checkpoint (the worker does not send the input again once it was checkpointed). After
 *   `maxAttempts` the run ends with an error instead.
 * - Fencing: a process that is alive but late (a stalled event loop) also loses its runs that way, so
 *   the worker checks its token (`fence`) before every write of the run and stops at the first failed
 *   check; checkpoint writes check it inside their own statement (`fenceCondition`), so the check costs
 *   no round trip. The token is per claim, so a run this same process claims again is fenced too.
 * - Wake-ups and cancels travel over LISTEN/NOTIFY; a cancel is also a durable column, read by the
 *   heartbeat, so it reaches the owner even when a notification is lost. A cancel that arrives before
 *   its run's executor subscribes (between the claim and the subscription) is kept for it a minute.
 * - A claim also counts the pending runs it left. When it left none, the next claims answer "nothing"
 *   without a query until something can have changed that: a run inserted by this process
 *   (`expectWork`), a wake-up from another process (the NOTIFY names its sender, so this process's own
 *   is told apart), a sweep that requeued runs, or a second since the last query (the fallback poll, as
 *   before). A run finishing here frees only its own thread, which has nothing pending then.
 * - The statements that make a run claimable (the run store's insert, a run leaving `running`) carry the
 *   wake-up NOTIFY themselves; the `notify` that follows them here then only wakes this process.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type pg from "pg";
import { CHANNELS, type Notifier } from "./postgres-notify.js";
import { type RunRow, toRun } from "./postgres-store.js";
import type { CancelAction, RowFence, RunQueue, RunRecord } from "./types.js";
import { createWakeups } from "./wakeups.js";

/** The fence on the run's own row: it ($1) still carries this claim's token ($2) and is running. */
const OWNED_ROW = "run_id = $1 AND worker_id = $2 AND status = 'running'";
/** The fence as a condition of any statement. */
const OWNED = `EXISTS (SELECT 1 FROM server_runs WHERE ${OWNED_ROW})`;

const RUN_COLUMNS =
  "run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, multitask_strategy, kwargs";

/** The claim falls back to a query at least this often, even when nothing was pending (ms). */
const CLAIM_POLL_MS = 1000;
/** How long a store statement's wake-up stands in for the queue's next `notify` (ms). */
const ANNOUNCED_MS = 1000;
/** How long a cancel with no subscriber yet is kept for the executor that subscribes next (ms). */
const EARLY_CANCEL_MS = 60_000;

/** Options of the Postgres queue. */
export interface PostgresQueueOptions {
  /** How long a claimed run stays owned without a heartbeat (default 30 s). */
  leaseMs?: number;
  /** Attempts before a run whose workers keep dying ends with an error (default 3). */
  maxAttempts?: number;
  log: (line: string) => void;
}

/** The queue plus what the services need beside the interface. */
export interface PostgresRunQueue extends RunQueue {
  /** This process's id in `server_runs.worker_id`. */
  readonly workerId: string;
  /** Runs whose owner's lease expired: those with attempts left go back to pending; the rest are returned to be failed. */
  sweep(): Promise<{ requeued: RunRecord[]; exhausted: RunRecord[] }>;
  /** A run was inserted by this process: the next claim queries even when the last one left nothing pending. */
  expectWork(): void;
  /** A store statement just sent the queue's wake-up to every process: the next `notify` sends none. */
  announced(): void;
  /** The fence of the last claim of `runId` here: resolves whether that claim still owns the run. */
  fence(runId: string): () => Promise<boolean>;
  fenceCondition(runId: string): { sql: string; params: unknown[]; row: RowFence } | undefined;
  owned(runId: string): Promise<RunRecord | null>;
  close(): void;
}

/** Creates the queue; starts the heartbeat. */
export function createPostgresRunQueue(
  pool: pg.Pool,
  notifier: Notifier,
  options: PostgresQueueOptions,
): PostgresRunQueue {
  const leaseMs = options.leaseMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 3;
  const workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const cancelListeners = new Map<string, Set<(action: CancelAction) => void>>();
  const wakeups = createWakeups();
  const wakeAll = () => wakeups.wakeAll();
  /** Cancels that came before anyone here subscribed to their run. */
  const earlyCancels = new Map<string, CancelAction>();
  const deliverCancel = (runId: string, action: CancelAction) => {
    const listeners = cancelListeners.get(runId);
    if (!listeners || listeners.size === 0) {
      earlyCancels.set(runId, action);
      setTimeout(() => earlyCancels.delete(runId), EARLY_CANCEL_MS).unref();
      return;
    }
    for (const listener of [...listeners]) listener(action);
  };
  /** True while the last claim query left no pending run and nothing since can have added one. */
  let nothingPending = false;
  let lastClaimQuery = 0;
  /** When a store statement last carried the wake-up (0: its notice was used). */
  let lastAnnounced = 0;
  /** Counts what can have added claimable work, so a claim that raced with one does not mark the queue quiet. */
  let changes = 0;
  const mayHaveWork = () => {
    changes += 1;
    nothingPending = false;
  };
  // The lease token of each run's latest claim here, and the executions to tell when theirs is gone.
  const tokens = new Map<string, string>();
  const lostListeners = new Map<string, { runId: string; listener: () => void }>();
  const offRuns = notifier.on(CHANNELS.runs, (payload) => {
    // Another process's wake-up (its own carry this process's id): something may be claimable.
    if (payload !== workerId) mayHaveWork();
    wakeAll();
  });
  const offCancel = notifier.on(CHANNELS.cancel, (payload) => {
    const [runId, action] = payload.split(":");
    if (runId && (action === "interrupt" || action === "rollback")) deliverCancel(runId, action);
  });

  // Renews the leases of the runs this process is executing now (not of every run it claimed: one whose
  // execution broke off without settling, e.g. while the database was away, must expire and be resumed)
  // and picks up cancel flags whose notification was missed.
  const heartbeat = setInterval(
    () => {
      if (lostListeners.size === 0) return;
      void pool
        .query<{ run_id: string; worker_id: string; cancel_action: string | null }>(
          "UPDATE server_runs SET lease_expires = now() + make_interval(secs => $1) WHERE worker_id = ANY($2) AND status = 'running' RETURNING run_id, worker_id, cancel_action",
          [leaseMs / 1000, [...lostListeners.keys()]],
        )
        .then(async (result) => {
          for (const row of result.rows)
            if (row.cancel_action) deliverCancel(row.run_id, row.cancel_action as CancelAction);
          // Executions the renewal did not find: still theirs only if the run still carries their token.
          const renewed = new Set(result.rows.map((row) => row.worker_id));
          const missing = [...lostListeners.keys()].filter((token) => !renewed.has(token));
          if (missing.length === 0) return;
          const owned = await pool.query<{ worker_id: string }>(
            "SELECT worker_id FROM server_runs WHERE worker_id = ANY($1)",
            [missing],
          );
          const still = new Set(owned.rows.map((row) => row.worker_id));
          for (const token of missing) if (!still.has(token)) lostListeners.get(token)?.listener();
        })
        .catch((error) => options.log(`queue: lease renewal failed (${(error as Error).message}); retrying.`));
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  heartbeat.unref();

  return {
    workerId,
    expectWork() {
      mayHaveWork();
    },
    announced() {
      lastAnnounced = Date.now();
    },
    async claim() {
      if (nothingPending && Date.now() - lastClaimQuery < CLAIM_POLL_MS) return null;
      const token = `${workerId}/${randomUUID().slice(0, 8)}`;
      nothingPending = false;
      lastClaimQuery = Date.now();
      const seen = changes;
      try {
        // `pending` is counted in the statement's snapshot, from before the claim (so it includes it). The
        // attempt is counted and the thread marked busy in the same statement.
        const result = await pool.query<RunRow & { pending: string; claimed: boolean }>(
          `WITH claimed AS (
           UPDATE server_runs SET status = 'running', worker_id = $1, lease_expires = now() + make_interval(secs => $2), updated_at = $3,
             kwargs = kwargs || jsonb_build_object('attempt', COALESCE((kwargs->>'attempt')::int, 0) + 1)
           WHERE seq = (
             SELECT r.seq FROM server_runs r
             WHERE r.status = 'pending' AND r.cancel_action IS NULL
               AND coalesce((r.kwargs->>'not_before')::timestamptz, '-infinity') <= now()
               AND NOT EXISTS (SELECT 1 FROM server_runs x WHERE x.thread_id = r.thread_id AND x.status = 'running')
               AND NOT EXISTS (SELECT 1 FROM server_runs y WHERE y.thread_id = r.thread_id AND y.status = 'pending' AND y.seq < r.seq)
             ORDER BY r.seq FOR UPDATE SKIP LOCKED LIMIT 1
           ) AND status = 'pending'
           RETURNING ${RUN_COLUMNS}
           ), busy AS (
             UPDATE server_threads t SET status = 'busy', updated_at = $3 FROM claimed c WHERE t.thread_id = c.thread_id
           )
           SELECT c.*, c.run_id IS NOT NULL AS claimed, (SELECT count(*) FROM server_runs WHERE status = 'pending') AS pending
           FROM (SELECT 1) one LEFT JOIN claimed c ON true`,
          [token, leaseMs / 1000, new Date().toISOString()],
        );
        const row = result.rows[0];
        const left = Number(row?.pending ?? 1) - (row?.claimed ? 1 : 0);
        // Only if nothing woke the queue while the statement ran.
        if (left <= 0 && changes === seen) nothingPending = true;
        if (!row?.claimed) return null;
        const { pending: _pending, claimed: _claimed, ...run } = row;
        tokens.set(run.run_id, token);
        return toRun(run as RunRow);
      } catch (error) {
        // Another process claimed a run of the same thread first (partial unique index): try again later.
        if ((error as { code?: string }).code === "23505") return null;
        throw error;
      }
    },
    notify() {
      wakeAll();
      // The insert or the status change that calls for this wake-up already carried it (within a second).
      if (Date.now() - lastAnnounced < ANNOUNCED_MS) {
        lastAnnounced = 0;
        return;
      }
      void notifier.notify(CHANNELS.runs, workerId).catch(() => {});
    },
    wait(ms) {
      return wakeups.wait(ms);
    },
    cancel(runId, action) {
      deliverCancel(runId, action);
      void pool
        .query("UPDATE server_runs SET cancel_action = $2 WHERE run_id = $1 AND status IN ('pending', 'running')", [
          runId,
          action,
        ])
        .then(() => notifier.notify(CHANNELS.cancel, `${runId}:${action}`))
        .catch((error) =>
          options.log(`queue: cancel of ${runId} could not be recorded (${(error as Error).message}).`),
        );
    },
    onCancel(runId, listener) {
      let set = cancelListeners.get(runId);
      if (!set) cancelListeners.set(runId, (set = new Set()));
      set.add(listener);
      // A cancel that came between the claim and now (its notification, or this process's own cancel) is
      // delivered too; one whose notification was lost reaches the heartbeat, as at any other time.
      const early = earlyCancels.get(runId);
      if (early) {
        earlyCancels.delete(runId);
        queueMicrotask(() => {
          if (set!.has(listener)) listener(early);
        });
      }
      return () => {
        set!.delete(listener);
        if (set!.size === 0) cancelListeners.delete(runId);
      };
    },
    onLost(runId, listener) {
      const token = tokens.get(runId);
      if (!token) return () => {};
      const entry = { runId, listener };
      lostListeners.set(token, entry);
      return () => {
        if (lostListeners.get(token) === entry) lostListeners.delete(token);
        if (tokens.get(runId) === token) tokens.delete(runId);
      };
    },
    fence(runId) {
      const token = tokens.get(runId);
      return async () => {
        if (!token) return false;
        const owned = await pool.query(`SELECT 1 WHERE ${OWNED}`, [runId, token]);
        return (owned.rowCount ?? 0) > 0;
      };
    },
    async owned(runId) {
      const token = tokens.get(runId);
      if (!token) return null;
      const result = await pool.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM server_runs WHERE run_id = $1 AND worker_id = $2 AND status = 'running'`,
        [runId, token],
      );
      return result.rows[0] ? toRun(result.rows[0]) : null;
    },
    fenceCondition(runId) {
      const token = tokens.get(runId);
      return token
        ? { sql: OWNED, params: [runId, token], row: { sql: OWNED_ROW, params: [runId, token] } }
        : undefined;
    },
    async recover() {
      return (await this.sweep()).requeued;
    },
    async sweep() {
      const requeued = await pool.query<RunRow>(
        `UPDATE server_runs SET status = 'pending', worker_id = NULL, lease_expires = NULL, updated_at = $2
         WHERE status = 'running' AND lease_expires < now() AND cancel_action IS NULL AND COALESCE((kwargs->>'attempt')::int, 0) < $1
         RETURNING ${RUN_COLUMNS}`,
        [maxAttempts, new Date().toISOString()],
      );
      // Out of attempts, or cancelled while its worker died: the caller ends these. Said explicitly, not
      // as "what the first statement left": a lease that lapses between the two must not count as out.
      const exhausted = await pool.query<RunRow>(
        `UPDATE server_runs SET worker_id = $1, lease_expires = now() + make_interval(secs => $2)
         WHERE status = 'running' AND lease_expires < now() AND (cancel_action IS NOT NULL OR COALESCE((kwargs->>'attempt')::int, 0) >= $3)
         RETURNING ${RUN_COLUMNS}`,
        [workerId, leaseMs / 1000, maxAttempts],
      );
      if (requeued.rows.length > 0) {
        mayHaveWork();
        this.notify();
      }
      return { requeued: requeued.rows.map(toRun), exhausted: exhausted.rows.map(toRun) };
    },
    close() {
      clearInterval(heartbeat);
      offRuns();
      offCancel();
      wakeAll();
    },
  };
}
