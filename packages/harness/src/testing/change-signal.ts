/**
 * "Something changed" for the platform stand-ins: long polls wait on it, and tests wait until a
 * condition on the stand-in's records holds, re-checked at every change rather than on a timer.
 */

/** A signal fired whenever a stand-in's state changes. */
export class ChangeSignal {
  private waiters: Array<() => void> = [];

  /** Wakes everything waiting. */
  fire(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves at the next change, or after `maxMs`. */
  next(maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          this.waiters = this.waiters.filter((wake) => wake !== done);
          resolve();
        },
        Math.max(0, maxMs),
      );
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(done);
    });
  }

  /** Resolves with the first defined result of `check`, checked now and after each change; fails after `limitMs` naming `what`. */
  async until<T>(what: string, check: () => T | undefined, limitMs: number): Promise<T> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const result = check();
      if (result !== undefined) return result;
      if (Date.now() >= deadline) throw new Error(`Gave up waiting for ${what} after ${limitMs / 1000} s.`);
      await this.next(Math.min(250, deadline - Date.now()));
    }
  }
}
