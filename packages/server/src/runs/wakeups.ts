/**
 * The idle wait both run queues give their workers: `wait(ms)` parks a worker until the time is up or
 * `wakeAll()` says new work may be there, whichever comes first. Kept once so the local and Postgres
 * queues cannot drift in how a woken or timed-out waiter leaves the list.
 */

/** A set of parked workers. */
export interface Wakeups {
  /** Resolves after `ms`, or sooner when {@link Wakeups.wakeAll} is called. */
  wait(ms: number): Promise<void>;
  /** Releases every worker waiting now. */
  wakeAll(): void;
}

/** Creates an empty set of parked workers. */
export function createWakeups(): Wakeups {
  let waiters: (() => void)[] = [];
  return {
    wait(ms) {
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          waiters = waiters.filter((waiter) => waiter !== done);
          resolve();
        }
        waiters.push(done);
      });
    },
    wakeAll() {
      const woken = waiters;
      waiters = [];
      for (const wake of woken) wake();
    },
  };
}
