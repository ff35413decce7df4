/**
 * Drives one batch to its end: claims items with leases (at most `concurrency` held at once), runs
 * each, records its result or its failure, renews the leases while they run, and reports progress.
 * Any number of runners may work on one batch (a resumed run's, a stale one on another host): the
 * store's leases keep them from recording an item twice. Holders that were processes of this host and
 * are gone (a SIGKILLed server) are expired at once instead of waiting out their lease.
 */
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { hostname } from "node:os";
import { renderPrompt } from "./input.js";
import { type BatchCounts, type BatchRecord, type BatchStore, parseWorkerName, workerName } from "./store.js";

/** Longest error text kept for a failed attempt. */
const MAX_ERROR_CHARS = 2000;

/** Options of {@link runBatch}. */
export interface RunBatchOptions {
  store: BatchStore;
  batch: BatchRecord;
  /** Runs one item's prompt; its text is the item's result. A throw is a failed attempt. */
  runItem: (prompt: string, signal: AbortSignal) => Promise<string>;
  /** How long a claim lives without renewal (renewed every third of it). */
  leaseMs: number;
  /** The run's signal: once aborted, no item starts and the held ones are given back. */
  signal?: AbortSignal;
  /** Called as items settle (at most every `progressMs`, and once at the end). */
  onProgress?: (counts: BatchCounts) => void;
  /** Least time between two progress reports (default 250 ms). */
  progressMs?: number;
  host?: string;
  pid?: number;
  now?: () => number;
}

/** How a batch run ended: every item settled, or stopped by the signal. */
export interface BatchOutcome {
  counts: BatchCounts;
  cancelled: boolean;
}

/** Runs the batch's unsettled items until none is left (or the signal aborts). */
export async function runBatch(options: RunBatchOptions): Promise<BatchOutcome> {
  const { store, batch, leaseMs } = options;
  const now = options.now ?? Date.now;
  const host = options.host ?? hostname();
  const pid = options.pid ?? process.pid;
  const worker = workerName(host, pid, randomUUID().slice(0, 8));
  const signal = options.signal ?? new AbortController().signal;
  // Every item in flight hands the signal to its model call, which listens on it: up to 16 at once,
  // past Node's warning at 10 listeners. They are removed as each call ends.
  setMaxListeners(64, signal);
  const progressMs = options.progressMs ?? 250;

  let counts = await store.counts(batch.batchId);
  let reported = -1;
  let reportedAt = 0;
  const report = (force: boolean) => {
    const settled = counts.done + counts.failed;
    if (settled === reported && !force) return;
    if (!force && now() - reportedAt < progressMs) return;
    reported = settled;
    reportedAt = now();
    options.onProgress?.({ ...counts });
  };
  report(true);

  const heartbeat = setInterval(
    () => void store.renew(batch.batchId, worker, now(), leaseMs).catch(() => undefined),
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  heartbeat.unref?.();
  const inFlight = new Set<Promise<void>>();
  // An item that ignores the signal must not keep a cancelled batch waiting.
  const aborted = new Promise<void>((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true }),
  );
  const runOne = async (index: number, item: string) => {
    try {
      const result = await options.runItem(renderPrompt(batch.template, item), signal);
      if (signal.aborted) return;
      if (await store.complete(batch.batchId, index, worker, result)) {
        counts = { ...counts, done: counts.done + 1 };
      }
    } catch (error) {
      if (signal.aborted) return;
      const text = (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_CHARS);
      const outcome = await store.fail(batch.batchId, index, worker, text || "the item failed without a message");
      if (outcome === "failed") counts = { ...counts, failed: counts.failed + 1 };
    }
    report(false);
  };

  try {
    await expireDeadHolders(store, batch.batchId, host, pid);
    while (!signal.aborted) {
      const room = batch.concurrency - inFlight.size;
      if (room > 0) {
        const claimed = await store.claim(batch.batchId, worker, room, now(), leaseMs);
        for (const { index, item } of claimed) {
          const task: Promise<void> = runOne(index, item).finally(() => inFlight.delete(task));
          inFlight.add(task);
        }
        if (claimed.length === 0 && inFlight.size === 0) {
          counts = await store.counts(batch.batchId);
          if (counts.pending === 0 && counts.running === 0) break;
          // Items held by another runner: wait for them to settle or for their leases to run out.
          await pause(Math.min(1000, Math.max(50, leaseMs / 4)), signal);
          await expireDeadHolders(store, batch.batchId, host, pid);
          continue;
        }
        if (claimed.length === room) continue;
      }
      if (inFlight.size > 0) await Promise.race([...inFlight, aborted]);
    }
  } finally {
    clearInterval(heartbeat);
  }
  if (signal.aborted) {
    await store.release(batch.batchId, worker);
    return { counts: await store.counts(batch.batchId), cancelled: true };
  }
  counts = await store.counts(batch.batchId);
  report(true);
  return { counts, cancelled: false };
}

/** Expires the claims of this host's processes that no longer exist (never this process's). */
async function expireDeadHolders(store: BatchStore, batchId: string, host: string, pid: number): Promise<void> {
  const dead = (await store.holders(batchId)).filter((holder) => {
    const parsed = parseWorkerName(holder);
    return parsed !== undefined && parsed.host === host && parsed.pid !== pid && !processAlive(parsed.pid);
  });
  if (dead.length > 0) await store.expire(batchId, dead);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** The results file's lines (JSONL, index order) of every settled item. */
export async function resultLines(store: BatchStore, batchId: string): Promise<string> {
  const lines: string[] = [];
  let after = -1;
  for (;;) {
    const page = await store.settled(batchId, after, 1000);
    for (const row of page) {
      const base = {
        index: row.index,
        item: JSON.parse(row.item) as unknown,
        status: row.state,
        attempts: row.attempts,
      };
      lines.push(
        JSON.stringify(
          row.state === "done" ? { ...base, result: row.result ?? "" } : { ...base, error: row.error ?? "" },
        ),
      );
    }
    if (page.length < 1000) break;
    after = page.at(-1)!.index;
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
