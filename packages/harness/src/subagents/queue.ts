/**
 * The process's subagent queue: at most `max_running` subagents run at once across every thread and
 * run of the process; the rest wait in FIFO order, up to `max_waiting` of them, each for at most
 * `wait_timeout_seconds`.
 *
 * The per-response and per-run limits (concurrency.ts) bound one lead; without this bound, many users'
 * leads together could start any number of subagents and exhaust the model quota or the machine. When
 * the line is full, `reject_policy` decides who is turned away: the newcomer (`reject_new`) or the task
 * that has waited longest (`drop_oldest`). A task turned away or timed out never starts; its `task`
 * result says so (`subagent_queue_outcome`).
 */

/** `subagents.queue` after validation. */
export interface SubagentQueueSettings {
  maxRunning: number;
  maxWaiting: number;
  waitTimeoutSeconds: number;
  rejectPolicy: "reject_new" | "drop_oldest";
}

/** A slot was granted: call `release` exactly once when the subagent ends. */
export interface SlotGranted {
  ok: true;
  release: () => void;
}

/** No slot: turned away (`rejected`), waited too long (`timed_out`), or the parent run ended (`cancelled`). */
export interface SlotRefused {
  ok: false;
  reason: "rejected" | "timed_out" | "cancelled";
  /** A sentence for the lead model saying what happened and what to do. */
  message: string;
}

export type SlotOutcome = SlotGranted | SlotRefused;

interface Waiter {
  settle: (outcome: SlotOutcome) => void;
}

/** setTimeout fires at once beyond this (2^31 - 1 ms), so longer waits are capped. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A FIFO queue of subagent slots.
 *
 * @example
 * const queue = new SubagentQueue({ maxRunning: 8, maxWaiting: 32, waitTimeoutSeconds: 600, rejectPolicy: "reject_new" });
 * const slot = await queue.acquire({ signal });
 * if (!slot.ok) return slot.message;
 * try { await runSubagent(...) } finally { slot.release(); }
 */
export class SubagentQueue {
  private active = 0;
  private readonly waiters: Waiter[] = [];

  constructor(readonly settings: SubagentQueueSettings) {}

  /** Subagents holding a slot now. */
  get running(): number {
    return this.active;
  }

  /** Tasks waiting for a slot now. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Waits for a slot. `onQueued(position)` is called once when the task has to wait (position 1 is
   * next). Never throws.
   */
  acquire(options: { signal?: AbortSignal; onQueued?: (position: number) => void } = {}): Promise<SlotOutcome> {
    const { signal } = options;
    if (signal?.aborted) return Promise.resolve(this.refused("cancelled"));
    if (this.active < this.settings.maxRunning && this.waiters.length === 0) return Promise.resolve(this.grant());
    if (this.waiters.length >= this.settings.maxWaiting) {
      if (this.settings.rejectPolicy === "reject_new" || this.waiters.length === 0)
        return Promise.resolve(this.refused("rejected"));
      this.waiters.shift()!.settle(this.refused("rejected"));
    }
    return new Promise<SlotOutcome>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => waiter.settle(this.refused("cancelled"));
      const waiter: Waiter = {
        settle: (outcome) => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve(outcome);
        },
      };
      this.waiters.push(waiter);
      timer = setTimeout(
        () => waiter.settle(this.refused("timed_out")),
        Math.min(Math.max(0, this.settings.waitTimeoutSeconds * 1000), MAX_TIMER_MS),
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      options.onQueued?.(this.waiters.length);
    });
  }

  private grant(): SlotGranted {
    this.active += 1;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.active -= 1;
        const next = this.waiters[0];
        if (next && this.active < this.settings.maxRunning) next.settle(this.grant());
      },
    };
  }

  private refused(reason: SlotRefused["reason"]): SlotRefused {
    const { maxRunning, maxWaiting, waitTimeoutSeconds } = this.settings;
    const message =
      reason === "rejected"
        ? `Task rejected by the subagent queue: ${maxRunning} subagents are running and ${maxWaiting} tasks are waiting (subagents.queue). Nothing was started; do the work yourself or delegate it later.`
        : reason === "timed_out"
          ? `Task timed out in the subagent queue: no subagent slot came free within ${waitTimeoutSeconds} seconds (subagents.queue.wait_timeout_seconds). Nothing was started; do the work yourself or delegate it later.`
          : "Task cancelled while it waited in the subagent queue.";
    return { ok: false, reason, message };
  }
}
