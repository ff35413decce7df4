/**
 * Holds finished conversations until they are worth learning from. Each turn of a chat ends the agent run,
 * and a memory update costs a model call, so a thread's conversation waits `debounceMs` after its last
 * turn; a newer conversation for the same thread replaces the waiting one (it contains it). Due jobs run
 * in the background one at a time, so two updates never race for the store.
 *
 * With a journal, every job is on disk from the moment it is queued until it is done, so the process can
 * end at any time: `stop()` abandons the work at once and the next process that opens the home picks it
 * up. A job whose update failed is tried again after `retryDelayMs`, at most `maxAttempts` times in all
 * (across processes), then given up with a warning. `flush()` runs everything waiting right away and
 * waits for it, for a caller that wants memory up to date now.
 *
 * Timers are unref'd: a waiting job alone does not keep a process alive; call `flush()`, `stop()` or `close()`.
 */
import { randomUUID } from "node:crypto";
import type { MemoryTurn } from "./conversation-filter.js";
import type { MemoryJournal } from "./memory-journal.js";
import { type MemorySignal, mergeMemorySignals } from "./memory-signals.js";

/** One conversation to learn from. */
export interface MemoryJob {
  /** Identifies the job in the journal; given at enqueue. */
  id?: string;
  threadId: string;
  conversation: MemoryTurn[];
  /** The agent the conversation belongs to, when the queue is shared by several agents. */
  agentName?: string;
  /** The user the conversation belongs to (absent: the local user), when the queue is shared by several users. */
  userId?: string;
  /** Failed updates so far. */
  attempts?: number;
  /**
   * What the user's words showed (`detectMemorySignals`). A newer conversation that replaces a waiting
   * one keeps its signals: the correction may have scrolled out of the newer one's detection window.
   */
  signals?: MemorySignal[];
  /**
   * A conversation that stands alone (the turns compaction is about to remove): it runs at once, is never
   * replaced by the thread's next conversation and replaces none, since neither contains the other.
   */
  standalone?: boolean;
  /**
   * The id of the thread's last message when the conversation was taken (it holds every message up to
   * it). Once the job is done, {@link MemoryQueue.learnedThrough} answers it for the thread.
   */
  throughMessageId?: string;
}

/** What `enqueue` records with a conversation besides its thread. */
export interface EnqueueOptions {
  agentName?: string;
  userId?: string;
  signals?: readonly MemorySignal[];
  /** Queue it as a job of its own that starts now (see `MemoryJob.standalone`). */
  standalone?: boolean;
  /** The id of the thread's last message the conversation holds (see `MemoryJob.throughMessageId`). */
  throughMessageId?: string;
}

/** The job of a thread that `learnedThrough` looks up (the same agent and user as it was queued with). */
export interface JobOwner {
  agentName?: string;
  userId?: string;
}

/** Threads whose learned position a queue remembers; those learned from longest ago are forgotten first. */
const LEARNED_THREADS = 1000;

/** Options of `createMemoryQueue`. */
export interface MemoryQueueOptions {
  /** Quiet time after a thread's last enqueue before its job runs (DeerFlow: 30 000). */
  debounceMs: number;
  /**
   * Does the work (usually `updater.update`). Resolves "retry" when the update failed in a way that may
   * pass (the model did not answer); a rejection counts the same and is reported through `onWarning`.
   * `signal` aborts when the queue stops.
   */
  process: (job: MemoryJob, signal: AbortSignal) => Promise<void | "retry">;
  /** Keeps every job on disk until it is done (see memory-journal.ts). */
  journal?: Pick<MemoryJournal, "record" | "settle" | "failed" | "release">;
  /** Failed updates before a job is given up (default 3). */
  maxAttempts?: number;
  /** Wait before a failed job is tried again in this process (default 60 000). */
  retryDelayMs?: number;
  onWarning?: (message: string) => void;
}

/** A per-thread debounced background queue. */
export interface MemoryQueue {
  /** Schedules `conversation` for `threadId`, replacing one that is still waiting for the same thread. */
  enqueue(threadId: string, conversation: MemoryTurn[], options?: EnqueueOptions): void;
  /** Queues jobs adopted from the journal (already recorded there) to run now, in the background. */
  resume(jobs: readonly MemoryJob[]): void;
  /**
   * The id of the last message of `threadId` that memory has learned from in this process: the
   * `throughMessageId` of its latest finished (not standalone) job. Undefined when none finished yet. A
   * waiting job does not count: a newer conversation may still replace it.
   */
  learnedThrough(threadId: string, owner?: JobOwner): string | undefined;
  /** Runs every waiting job now and resolves when all jobs (including one in progress) are done. */
  flush(): Promise<void>;
  /** Jobs not finished yet: waiting, due, or in progress. */
  pending(): number;
  /**
   * Ends the queue's work at once: refuses further jobs, drops the waiting ones, aborts the one in
   * progress and releases their journal entries to the next process. Never waits for a model.
   */
  stop(): void;
  /** Flushes, then stops. */
  close(): Promise<void>;
}

/**
 * Creates a memory queue.
 *
 * @example
 * const queue = createMemoryQueue({ debounceMs: 30_000, journal, process: (job, signal) => learn(job, signal) });
 * queue.enqueue("thread-1", turns);
 * queue.stop(); // on exit: the journal keeps the conversation for the next process
 */
export function createMemoryQueue(options: MemoryQueueOptions): MemoryQueue {
  const warn = options.onWarning ?? (() => {});
  const maxAttempts = options.maxAttempts ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 60_000;
  const waiting = new Map<string, { job: MemoryJob; timer: ReturnType<typeof setTimeout> }>();
  const due: MemoryJob[] = [];
  const controller = new AbortController();
  let inProgress = 0;
  let running: Promise<void> | undefined;
  let closed = false;
  // Thread key -> the last message its finished jobs covered, newest threads last.
  const learned = new Map<string, string>();

  const threadKey = (threadId: string, owner: JobOwner = {}) =>
    `${owner.agentName ?? ""}\u0000${owner.userId ?? ""}\u0000${threadId}`;
  const keyOf = (job: MemoryJob) => (job.standalone ? `\u0001${job.id}` : threadKey(job.threadId, job));

  /** Remembers how far a finished job covered its thread, for at most {@link LEARNED_THREADS} threads. */
  function rememberLearned(job: MemoryJob): void {
    if (job.standalone || !job.throughMessageId) return;
    const key = keyOf(job);
    learned.delete(key);
    learned.set(key, job.throughMessageId);
    if (learned.size > LEARNED_THREADS) learned.delete(learned.keys().next().value as string);
  }

  /** A journal failure (disk full, lock busy) costs durability, never the update itself. */
  function journal(action: "record" | "settle" | "failed", job: MemoryJob): void {
    if (!options.journal) return;
    try {
      options.journal[action](job);
    } catch (error) {
      warn(`Memory journal: could not ${action} the job of thread ${job.threadId} (${(error as Error).message}).`);
    }
  }

  function afterRun(job: MemoryJob, outcome: void | "retry"): void {
    if (outcome !== "retry") {
      journal("settle", job);
      rememberLearned(job);
      return;
    }
    if (controller.signal.aborted) return; // cut short by stop(): not a failed attempt
    job.attempts = (job.attempts ?? 0) + 1;
    if (job.attempts >= maxAttempts) {
      warn(
        `Memory update for thread ${job.threadId} given up after ${job.attempts} failed attempts; that conversation is not remembered.`,
      );
      journal("settle", job);
      return;
    }
    journal("failed", job);
    if (!waiting.has(keyOf(job)) && !due.some((queued) => keyOf(queued) === keyOf(job))) wait(job, retryDelayMs);
  }

  function start(): void {
    if (running || closed) return;
    running = (async () => {
      for (let job = due.shift(); job && !closed; job = due.shift()) {
        inProgress += 1;
        let outcome: void | "retry";
        try {
          outcome = await options.process(job, controller.signal);
        } catch (error) {
          warn(`Memory update for thread ${job.threadId} failed: ${(error as Error).message}`);
          outcome = "retry";
        } finally {
          inProgress -= 1;
        }
        afterRun(job, outcome);
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

  function wait(job: MemoryJob, delayMs: number): void {
    const key = keyOf(job);
    const previous = waiting.get(key);
    if (previous) clearTimeout(previous.timer);
    const timer = setTimeout(() => {
      waiting.delete(key);
      makeDue(job);
    }, delayMs);
    timer.unref?.();
    waiting.set(key, { job, timer });
  }

  function enqueue(threadId: string, conversation: MemoryTurn[], extra: EnqueueOptions = {}): void {
    if (closed) {
      warn(`Memory queue is closed; the conversation of thread ${threadId} will not be remembered.`);
      return;
    }
    const job: MemoryJob = {
      id: randomUUID(),
      threadId,
      conversation,
      ...(extra.agentName ? { agentName: extra.agentName } : {}),
      ...(extra.userId ? { userId: extra.userId } : {}),
      ...(extra.throughMessageId ? { throughMessageId: extra.throughMessageId } : {}),
    };
    if (extra.standalone) {
      job.standalone = true;
      if (extra.signals && extra.signals.length > 0) job.signals = [...extra.signals];
      journal("record", job);
      makeDue(job);
      return;
    }
    const dueIndex = due.findIndex((queued) => keyOf(queued) === keyOf(job));
    const replaced = waiting.get(keyOf(job))?.job ?? due[dueIndex];
    const signals = mergeMemorySignals(extra.signals, replaced?.signals);
    if (signals.length > 0) job.signals = signals;
    journal("record", job);
    if (dueIndex >= 0) due.splice(dueIndex, 1); // not started yet: the newer conversation supersedes it
    wait(job, options.debounceMs);
  }

  function resume(jobs: readonly MemoryJob[]): void {
    if (closed) return;
    for (const job of jobs) if (!waiting.has(keyOf(job))) makeDue(job);
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

  function stop(): void {
    if (closed) return;
    closed = true;
    for (const { timer } of waiting.values()) clearTimeout(timer);
    waiting.clear();
    due.length = 0;
    controller.abort();
    try {
      options.journal?.release();
    } catch (error) {
      warn(`Memory journal: could not hand pending conversations on (${(error as Error).message}).`);
    }
  }

  async function close(): Promise<void> {
    await flush();
    stop();
  }

  return {
    enqueue,
    resume,
    learnedThrough: (threadId, owner) => learned.get(threadKey(threadId, owner)),
    flush,
    pending: () => waiting.size + due.length + inProgress,
    stop,
    close,
  };
}
