/**
 * Opens the run machinery the routes share: the local stores in the harness's checkpoint file, the
 * in-process queue, the in-memory event log and the worker. A cluster build swaps these four for
 * Postgres implementations (database.backend postgres), and the event log for Redis Streams
 * (stream.backend redis), and keeps everything above them.
 */
import type { AppConfig, Harness } from "@deerflow/harness";
import { type Assistant, listAssistants } from "./assistants.js";
import { createLocalRunQueue } from "./local-queue.js";
import { createMemoryEventLog } from "./memory-event-log.js";
import { openPostgresRunServices } from "./postgres-services.js";
import { createRedisClient, resolveRedisUrl } from "./redis-connection.js";
import { createRedisEventLog } from "./redis-event-log.js";
import { openSqliteRunStores } from "./sqlite-store.js";
import type { EventLog, RunQueue, RunStore, ThreadStore } from "./types.js";
import { openSqliteCronStore } from "../crons/sqlite-crons.js";
import type { CronStore } from "../crons/types.js";
import type { DeliveryStore } from "../webhooks/deliveries.js";
import { openSqliteFeedbackStore } from "../feedback/sqlite-feedback.js";
import type { FeedbackStore } from "../feedback/types.js";
import { openSqliteItemStore } from "../store/sqlite-items.js";
import type { ItemStore } from "../store/types.js";
import { openSqliteThreadTtlStore, type ThreadTtlStore } from "./thread-ttl.js";
import { openSqliteDeliveryStore } from "../webhooks/sqlite-deliveries.js";
import { createRunThreadPool, unsharableHarnessOptions } from "./thread-pool.js";
import { type CheckpointAdmin, createBackendWorker, type RunWorker, type WorkerDeps } from "./worker.js";

/** The run machinery as the routes see it. */
export interface RunServices {
  threads: ThreadStore;
  runs: RunStore;
  queue: RunQueue;
  events: EventLog;
  checkpoints: CheckpointAdmin;
  worker: RunWorker;
  /** Scheduled runs (crons/). */
  crons: CronStore;
  /** Webhook deliveries (webhooks/). */
  deliveries: DeliveryStore;
  /** Thumbs up/down on runs (feedback/). */
  feedback: FeedbackStore;
  /** The LangGraph store API's items (store/). */
  items: ItemStore;
  /** Thread TTLs (runs/thread-ttl.ts). */
  threadTtl: ThreadTtlStore;
  /** Tells the scheduler of every process on the database that crons changed. */
  announceCrons(): Promise<void>;
  /** Calls `listener` when crons changed (in this process or, on Postgres, any other); returns the unsubscribe. */
  onCronsAnnounced(listener: () => void): () => void;
  /** The assistants `owner` sees (lead_agent and their custom agents), re-read on each call. */
  assistants(owner: string | null): Assistant[];
  /** Database (and Redis) health for `GET /ok` (not for the local file alone: it needs no probe). */
  health?(): Promise<{ ok: boolean; database: Record<string, unknown>; stream?: { backend: "redis"; ok: boolean } }>;
  /** Connects what must answer before the server starts (Redis); rejects saying what is wrong. */
  open?(): Promise<void>;
}

/** A live event log on its own connection (stream.backend redis), with its lifecycle. */
export interface LiveEventLog {
  events: EventLog;
  open(): Promise<void>;
  /** True when Redis answers a PING within a few seconds. */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

/** Options of the run machinery. */
export interface RunServicesOptions {
  maxConcurrentRuns: number;
  /** Worker threads executing runs (SQLite; runs/thread-pool.ts); 0 or absent: on the HTTP thread. */
  runWorkers?: number;
  maxEventsPerRun: number;
  eventRetentionMs: number;
  log: (line: string) => void;
  threadLease?: WorkerDeps["threadLease"];
  onRunTokens?: WorkerDeps["onRunTokens"];
  /** Given by the server: the worker on the HTTP thread lets run requests go first (runs/requests-first.ts). */
  yieldToRequests?: WorkerDeps["yieldToRequests"];
  /** Where REDIS_URL is read (default process.env). */
  env?: Record<string, string | undefined>;
}

/** The Redis Streams event log when `stream.backend` is redis (its URL is checked here, the connection by `open()`). */
export function openLiveEventLog(config: AppConfig, options: RunServicesOptions): LiveEventLog | undefined {
  if (config.stream.backend !== "redis") return undefined;
  const client = createRedisClient(resolveRedisUrl(config.stream, options.env), options.log);
  const events = createRedisEventLog(client, {
    keyPrefix: config.stream.key_prefix,
    maxEvents: options.maxEventsPerRun,
    retentionMs: options.eventRetentionMs,
  });
  return {
    events,
    open: () => client.connectChecked(),
    async healthy() {
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), 3000).unref());
      return Promise.race([client.ping(), timeout]).then(
        () => true,
        () => false,
      );
    },
    async close() {
      await events.close();
      if (client.isOpen) await client.close().catch(() => client.destroy());
    },
  };
}

/** Opens the local run machinery next to the harness's checkpoints. */
export function openRunServices(
  harness: Harness,
  options: RunServicesOptions,
): RunServices & { close(): void | Promise<void> } {
  const live = openLiveEventLog(harness.setup.config, options);
  if (harness.setup.postgres) {
    if (options.runWorkers)
      options.log(
        "server.run_workers is ignored on Postgres: runs execute in this process; `deerflow serve --workers N` spreads them over processes.",
      );
    return openPostgresRunServices(harness, harness.setup.postgres, options, live);
  }
  const file = harness.setup.store?.file;
  if (!file) {
    throw new Error(
      "The server needs the built-in SQLite checkpointer (createHarness without a checkpointer option): its runs and threads live in the same file.",
    );
  }
  const stores = openSqliteRunStores(file);
  const localQueue = createLocalRunQueue(stores);
  const events =
    live?.events ?? createMemoryEventLog({ maxEvents: options.maxEventsPerRun, retentionMs: options.eventRetentionMs });
  const checkpoints: CheckpointAdmin = {
    rollbackCheckpoints: stores.rollbackCheckpoints,
    deleteThreadState: stores.deleteThreadState,
    copyThreadState: stores.copyThreadState,
  };
  const unsharable = options.runWorkers ? unsharableHarnessOptions(harness) : [];
  if (unsharable.length > 0)
    options.log(
      `warning: server.run_workers is ignored: the harness was given ${unsharable.join(", ")} in code, which a worker thread cannot rebuild; runs execute on the HTTP thread.`,
    );
  const { worker, queue } =
    options.runWorkers && unsharable.length === 0
      ? createRunThreadPool({
          harness,
          file,
          queue: localQueue,
          runs: stores.runs,
          events,
          count: options.runWorkers,
          settings: options,
        })
      : {
          queue: localQueue,
          worker: createBackendWorker(
            harness,
            { threads: stores.threads, runs: stores.runs, queue: localQueue, events, checkpoints },
            options,
          ),
        };
  const crons = openSqliteCronStore(file);
  const deliveries = openSqliteDeliveryStore(file);
  const feedback = openSqliteFeedbackStore(file);
  const items = openSqliteItemStore(file);
  const threadTtl = openSqliteThreadTtlStore(file);
  const cronListeners = new Set<() => void>();
  const startedAt = new Date().toISOString();
  return {
    threads: stores.threads,
    runs: stores.runs,
    queue,
    events,
    checkpoints,
    worker,
    crons,
    deliveries,
    feedback,
    items,
    threadTtl,
    async announceCrons() {
      for (const listener of cronListeners) listener();
    },
    onCronsAnnounced(listener) {
      cronListeners.add(listener);
      return () => cronListeners.delete(listener);
    },
    assistants: (owner) => listAssistants(harness.agents, owner, startedAt),
    open: live?.open,
    health: live
      ? async () => {
          const ok = await live.healthy();
          return { ok, database: { backend: "sqlite", ok: true }, stream: { backend: "redis", ok } };
        }
      : undefined,
    async close() {
      crons.close();
      deliveries.close();
      feedback.close();
      items.close();
      threadTtl.close();
      stores.close();
      await live?.close();
    },
  };
}
