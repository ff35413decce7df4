/**
 * Holds finished conversations until they are worth learning from. Each turn of a chat ends the agent run,
 * and a memory update costs a model call, so a thread's conversation waits `debounceMs` after its last
 * turn; a newer conversation for the same thread replaces the waiting one (it contains it). Due jobs run
 * in the background one at a time, so two updates never race for the store. `flush()` runs everything
 * waiting right away: a CLI calls it before exiting so a single-shot `deerflow run` still learns.
 *
 * Timers are unref'd: a waiting job alone does not keep a process alive; call `flush()` or `close()`.
 */
import type { MemoryTurn } from "./conversation-filter.js";

/** One conversation to learn from. */
export interface MemoryJob {
  threadId: string;
  conversation: MemoryTurn[];
  /** The agent the conversation belongs to, when the queue is shared by several agents. */
  agentName?: string;
}

/** Options of `createMemoryQueue`. */
export interface MemoryQueueOptions {
  /** Quiet time after a thread's last enqueue before its job runs (DeerFlow: 30 000). */
  debounceMs: number;
  /** Does the work (usually `updater.update`). A rejection is reported through `onWarning`. */
  process: (job: MemoryJob) => Promise<void>;
  onWarning?: (message: string) => void;
}

/** A per-thread debounced background queue. */
export interface MemoryQueue {
  /** Schedules `conversation` for `threadId`, replacing one that is still waiting for the same thread. */
  enqueue(threadId: string, conversation: MemoryTurn[], options?: { agentName?: string }): void;
  /** Runs every waiting job now and resolves when all jobs (including one in progress) are done. */
  flush(): Promise<void>;
  /** Jobs not finished yet: waiting, due, or in progress. */
  pending(): number;
  /** Flushes, then refuses further jobs (with a warning). */
  close(): Promise<void>;
}

/**
 * Creates a memory queue.
 *
 * @example
 * const queue = createMemoryQueue({ debounceMs: 30_000, process: (job) => updater.update(job.conversation, job).then(() => {}) });
 * queue.enqueue("thread-1", turns);
 * await queue.flush(); // before the process exits
 */
export function createMemoryQueue(options: MemoryQueueOptions): MemoryQueue {
  const warn = options.onWarning ?? (() => {});
  const waiting = new Map<string, { job: MemoryJob; timer: ReturnType<typeof setTimeout> }>();
  const due: MemoryJob[] = [];
  let inProgress = 0;
  let running: Promise<void> | undefined;
  let closed = false;

  const keyOf = (job: MemoryJob) => `${job.agentName ?? ""}\u0000${job.threadId}`;

  function start(): void {
    if (running) return;
    running = (async () => {
      for (let job = due.shift(); job; job = due.shift()) {
        inProgress += 1;
        try {
          await options.process(job);
        } catch (error) {
          warn(`Memory update for thread ${job.threadId} failed: ${(error as Error).message}`);
        } finally {
          inProgress -= 1;
        }
      }
    })().finally(() => {
      running = undefined;
      if (due.length > 0) start(); // a job became due while the loop was finishing
    });
  }

  function makeDue(job: MemoryJob): void {
    const key = keyOf(job);
    const index = due.findIndex((queued) => keyOf(queued) === key);
    if (index >= 0) due.splice(index, 1);
    due.push(job);
    start();
  }

  function enqueue(threadId: string, conversation: MemoryTurn[], extra: { agentName?: string } = {}): void {
    if (closed) {
      warn(`Memory queue is closed; the conversation of thread ${threadId} will not be remembered.`);
      return;
    }
    const job: MemoryJob = { threadId, conversation, ...(extra.agentName ? { agentName: extra.agentName } : {}) };
    const key = keyOf(job);
    const previous = waiting.get(key);
    if (previous) clearTimeout(previous.timer);
    const dueIndex = due.findIndex((queued) => keyOf(queued) === key);
    if (dueIndex >= 0) due.splice(dueIndex, 1); // not started yet: the newer conversation supersedes it
    const timer = setTimeout(() => {
      waiting.delete(key);
      makeDue(job);
    }, options.debounceMs);
    timer.unref?.();
    waiting.set(key, { job, timer });
  }

  async function flush(): Promise<void> {
    for (const [key, { job, timer }] of waiting) {
      clearTimeout(timer);
      waiting.delete(key);
      makeDue(job);
    }
    start();
    while (running) await running;
  }

  async function close(): Promise<void> {
    closed = true;
    await flush();
  }

  return { enqueue, flush, pending: () => waiting.size + due.length + inProgress, close };
}
