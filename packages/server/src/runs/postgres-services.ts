/**
 * The run machinery on Postgres (database.backend postgres): the four interfaces' Postgres versions on
 * the harness's pool, one LISTEN connection, and the sweeper that finds runs whose worker died. Every
 * process on the database runs this; which of them execute runs is the worker's business (`--api-only`).
 */
import { type Harness, type PostgresDatabase, runLeaseMs } from "@deerflow/harness";
import { listAssistants } from "./assistants.js";
import { createPostgresEventLog } from "./postgres-event-log.js";
import { CHANNELS, createNotifier } from "./postgres-notify.js";
import { createPostgresCronStore } from "../crons/postgres-crons.js";
import { createPostgresDeliveryStore } from "../webhooks/postgres-deliveries.js";
import { createPostgresFeedbackStore } from "../feedback/postgres-feedback.js";
import { createPostgresItemStore } from "../store/postgres-items.js";
import { createPostgresThreadTtlStore } from "./thread-ttl.js";
import { createPostgresRunQueue } from "./postgres-queue.js";
import { createPostgresCheckpointAdmin, createPostgresRunStore, createPostgresThreadStore } from "./postgres-store.js";
import type { LiveEventLog, RunServices, RunServicesOptions } from "./services.js";
import type { RunRecord } from "./types.js";
import { createBackendWorker } from "./worker.js";

/** Opens the Postgres run machinery over the harness's database; `live` replaces the `run_events` log (Redis). */
export function openPostgresRunServices(
  harness: Harness,
  db: PostgresDatabase,
  options: RunServicesOptions,
  live?: LiveEventLog,
): RunServices & { close(): Promise<void> } {
  const leaseMs = runLeaseMs();
  const notifier = createNotifier(db.url, db.pool, options.log);
  const threads = createPostgresThreadStore(db.pool);
  const queue = createPostgresRunQueue(db.pool, notifier, { leaseMs, log: options.log });
  // A run inserted here is work for the next claim even when the last one found the queue empty.
  const runs = createPostgresRunStore(db.pool, {
    onInserted: () => queue.expectWork(),
    wake: { channel: CHANNELS.runs, payload: queue.workerId, sent: () => queue.announced() },
  });
  const tableLog = live
    ? undefined
    : createPostgresEventLog(db.pool, notifier, {
        retentionMs: options.eventRetentionMs,
        maxEvents: options.maxEventsPerRun,
      });
  const events = live?.events ?? tableLog!;
  const checkpoints = createPostgresCheckpointAdmin(db.pool);
  const worker = createBackendWorker(harness, { threads, runs, queue, events, checkpoints }, options);

  /** Ends a run whose workers kept dying (or that was cancelled while its worker died). */
  const fail = async (run: RunRecord) => {
    const cancelled = await db.pool.query<{ cancel_action: string | null }>(
      "SELECT cancel_action FROM server_runs WHERE run_id = $1",
      [run.run_id],
    );
    const action = cancelled.rows[0]?.cancel_action;
    if (action === "rollback") {
      // No recorded start: the run wrote no checkpoint (its start is recorded with its first), so nothing to undo.
      if (run.kwargs.start_checkpoint_id !== undefined)
        await checkpoints.rollbackCheckpoints(run.thread_id, run.kwargs.start_checkpoint_id);
      await runs.delete(run.run_id);
    } else if (action === "interrupt") {
      await runs.update(run.run_id, { status: "interrupted" });
    } else {
      const error = {
        error: "WorkerLost",
        message: `The process running this run stopped ${run.kwargs.attempt ?? 0} times; it was not retried again. The thread keeps your message; send it again to retry.`,
      };
      await events.append(run.run_id, "error", JSON.stringify(error));
      await runs.update(run.run_id, { status: "error", kwargs: { error } });
    }
    const others = (await runs.active(run.thread_id)).filter((other) => other.run_id !== run.run_id);
    await threads.patch(run.thread_id, {
      status: action ? (others.length > 0 ? "busy" : "idle") : "error",
      ...(action ? {} : { error: "The run's worker stopped." }),
    });
    await events.end(run.run_id);
    options.log(
      `run ${run.run_id} on thread ${run.thread_id}: its worker died ${action ? "after a cancel" : "too many times"}; ended it.`,
    );
  };
  let sweeping = false;
  const sweeper = setInterval(
    () => {
      if (sweeping) return;
      sweeping = true;
      void queue
        .sweep()
        .then(async ({ requeued, exhausted }) => {
          for (const run of requeued)
            options.log(
              `run ${run.run_id} on thread ${run.thread_id}: its worker stopped renewing its lease; queued again to resume from the last checkpoint.`,
            );
          for (const run of exhausted) await fail(run);
        })
        .catch((error) => options.log(`sweeper: ${(error as Error).message}`))
        .finally(() => (sweeping = false));
    },
    Math.max(100, Math.floor(leaseMs / 2)),
  );
  sweeper.unref();

  const startedAt = new Date().toISOString();
  return {
    threads,
    runs,
    queue,
    events,
    checkpoints,
    worker,
    crons: createPostgresCronStore(db.pool),
    deliveries: createPostgresDeliveryStore(db.pool),
    feedback: createPostgresFeedbackStore(db.pool),
    items: createPostgresItemStore(db.pool),
    threadTtl: createPostgresThreadTtlStore(db.pool),
    announceCrons: () => notifier.notify(CHANNELS.crons, ""),
    onCronsAnnounced: (listener) => notifier.on(CHANNELS.crons, listener),
    assistants: (owner) => listAssistants(harness.agents, owner, startedAt),
    async health() {
      const [ok, streamOk] = await Promise.all([db.healthy(), live?.healthy()]);
      const database = { backend: "postgres", ok, notifications: notifier.connected() };
      if (streamOk === undefined) return { ok, database };
      return { ok: ok && streamOk, database, stream: { backend: "redis" as const, ok: streamOk } };
    },
    open: live?.open,
    async close() {
      clearInterval(sweeper);
      queue.close();
      await tableLog?.close();
      await live?.close();
      await notifier.close();
    },
  };
}
