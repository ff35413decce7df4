/**
 * The entry point of a run worker thread (`server.run_workers`, runs/thread-pool.ts). It builds its own
 * harness from the server's config and opens its own connection to the SQLite file (WAL), then runs the
 * ordinary worker (runs/worker.ts): claims runs, executes their graphs on this thread's event loop and
 * settles them. What belongs to the HTTP thread goes there by message: each event for the run's log,
 * wake-ups, the tokens a run spent, log lines and `read_conversation`'s owner check. Cancel requests and
 * wake-ups come back the same way.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createHarness, openThreadLeases } from "@deerflow/harness";
import { createLocalRunQueue } from "./local-queue.js";
import { openSqliteRunStores } from "./sqlite-store.js";
import type { FromRunThread, RunThreadCall, RunThreadData, ToRunThread } from "./thread-messages.js";
import type { EventLog, RunQueue } from "./types.js";
import { createBackendWorker } from "./worker.js";

/** How long a run waits for a thread another process is running before it fails as busy (as `deerflow serve`). */
const LEASE_WAIT_MS = 120_000;

const port = parentPort!;
const data = workerData as RunThreadData;
/**
 * Messages wait in an outbox until the current turn of the event loop ends, then go in one `postMessage`:
 * a run's events come in bursts, and one message per event cost more than the events themselves.
 */
let outbox: FromRunThread[] = [];
const flush = () => {
  if (outbox.length === 0) return;
  const batch = outbox;
  outbox = [];
  port.postMessage(batch.length === 1 ? batch[0] : ({ type: "batch", messages: batch } satisfies FromRunThread));
};
const post = (message: FromRunThread) => {
  if (outbox.push(message) === 1) setImmediate(flush);
};
const log = (line: string) => post({ type: "log", line });

let nextCall = 0;
const calls = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
/** Calls a method on the HTTP thread. */
function call<T>(request: RunThreadCall): Promise<T> {
  const id = (nextCall += 1);
  return new Promise<T>((resolve, reject) => {
    calls.set(id, { resolve: resolve as (value: unknown) => void, reject });
    post({ type: "call", id, ...request });
  });
}

async function main(): Promise<void> {
  const harness = await createHarness(data.config, {
    home: data.home,
    env: data.env,
    agentCacheSize: data.agentCacheSize,
    onWarning: (message) => log(`warning: ${message}`),
  });
  harness.setThreadAccess((threadId, userId) => call<boolean>({ method: "threadAccess", args: [threadId, userId] }));
  const stores = openSqliteRunStores(data.file);
  const leases = data.threadLease ? openThreadLeases(data.file) : undefined;
  const local = createLocalRunQueue(stores);
  const queue: RunQueue = {
    ...local,
    // Tell the HTTP thread's waiters (webhook deliveries) and the other run threads too.
    notify() {
      local.notify();
      post({ type: "notify" });
      post({ type: "active", runIds: worker.activeRunIds() });
    },
    async claim() {
      const run = await local.claim();
      if (run) post({ type: "active", runIds: [...worker.activeRunIds(), run.run_id] });
      return run;
    },
    // The HTTP thread requeued what a previous process left running before it started the threads.
    async recover() {
      return [];
    },
  };
  // Appends go in order through the port; the HTTP thread appends them to its log in that order.
  const events: EventLog = {
    async append(runId, event, text) {
      post({ type: "append", runId, event, data: text });
      return "";
    },
    async end(runId) {
      post({ type: "end", runId });
    },
    has: (runId) => call<boolean>({ method: "has", args: [runId] }),
    ended: (runId) => call<boolean>({ method: "ended", args: [runId] }),
    async *follow() {},
    async drop(runId) {
      post({ type: "drop", runId });
    },
  };
  const worker = createBackendWorker(
    harness,
    {
      threads: stores.threads,
      runs: stores.runs,
      queue,
      events,
      checkpoints: {
        rollbackCheckpoints: stores.rollbackCheckpoints,
        deleteThreadState: stores.deleteThreadState,
        copyThreadState: stores.copyThreadState,
      },
    },
    {
      maxConcurrentRuns: data.maxConcurrentRuns,
      eventRetentionMs: data.eventRetentionMs,
      log,
      threadLease: leases
        ? async (threadId, signal) => {
            const lease = await leases.acquire(threadId, { waitMs: LEASE_WAIT_MS, signal });
            return () => void lease.release();
          }
        : undefined,
      onRunTokens: async (run, tokens) => post({ type: "tokens", run, tokens }),
    },
  );

  port.on("message", (message: ToRunThread) => {
    switch (message.type) {
      case "notify":
        local.notify();
        break;
      case "cancel":
        local.cancel(message.runId, message.action);
        break;
      case "reloadSkills":
        harness.reloadSkills();
        break;
      case "invalidate":
        harness.invalidate();
        break;
      case "reply": {
        const pending = calls.get(message.id);
        calls.delete(message.id);
        if (message.error !== undefined) pending?.reject(new Error(message.error));
        else pending?.resolve(message.value);
        break;
      }
      case "drain":
        void worker
          .drain(message.graceMs)
          .then(async () => {
            await leases?.close();
            stores.close();
            await harness.close();
          })
          .catch((error: Error) => log(`run thread: shutdown failed: ${error.message}`))
          .finally(() => {
            post({ type: "drained" });
            flush();
            port.close();
          });
        break;
    }
  });
  await worker.start();
  post({ type: "ready" });
}

main().catch((error: Error) => {
  post({ type: "failed", message: error.stack ?? error.message });
  flush();
});
