/**
 * The in-process RunQueue: claims come from the SQLite run table (one running run per thread is a
 * transaction there), wake-ups and cancel requests are in-memory events. A Postgres queue would claim
 * with `FOR UPDATE SKIP LOCKED` and carry wake-ups and cancels over LISTEN/NOTIFY.
 */
import { EventEmitter } from "node:events";
import type { SqliteRunStores } from "./sqlite-store.js";
import type { CancelAction, RunQueue } from "./types.js";
import { createWakeups } from "./wakeups.js";

/** Creates the local queue over the SQLite stores. */
export function createLocalRunQueue(stores: SqliteRunStores): RunQueue {
  const cancels = new EventEmitter();
  cancels.setMaxListeners(0);
  const wakeups = createWakeups();
  // A cancel that arrives between the claim and the worker's subscription is kept until it subscribes.
  const early = new Map<string, CancelAction>();
  return {
    async claim() {
      return stores.claim();
    },
    notify() {
      wakeups.wakeAll();
    },
    wait(ms) {
      return wakeups.wait(ms);
    },
    cancel(runId, action) {
      if (cancels.listenerCount(runId) === 0) {
        early.set(runId, action);
        setTimeout(() => early.delete(runId), 60_000).unref();
      }
      cancels.emit(runId, action);
    },
    onCancel(runId, listener: (action: CancelAction) => void) {
      cancels.on(runId, listener);
      const waiting = early.get(runId);
      if (waiting) {
        early.delete(runId);
        queueMicrotask(() => listener(waiting));
      }
      return () => cancels.off(runId, listener);
    },
    async recover() {
      return stores.requeueRunning();
    },
  };
}
