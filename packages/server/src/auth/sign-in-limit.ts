/**
 * Sign-in attempts, limited per account name and per client address so a password cannot be guessed
 * at speed. Failures are counted in a sliding window in this process (a cluster multiplies the
 * allowance by its process count, still far too slow to guess a password); a success clears the name.
 */

/** Limits of the sign-in throttle. */
export interface SignInLimits {
  /** Failed attempts per name in the window. */
  perName: number;
  /** Failed attempts per client address in the window. */
  perAddress: number;
  windowMs: number;
}

const DEFAULTS: SignInLimits = { perName: 5, perAddress: 30, windowMs: 15 * 60_000 };

/** Counts failures; `check` says whether another attempt may be made now. */
export interface SignInLimiter {
  /** Seconds to wait before trying again, or 0 when an attempt is allowed. */
  retryAfter(name: string, address: string): number;
  failed(name: string, address: string): void;
  succeeded(name: string): void;
}

/** Creates a limiter (limits default to 5 per name and 30 per address in 15 minutes). */
export function createSignInLimiter(limits: Partial<SignInLimits> = {}): SignInLimiter {
  const { perName, perAddress, windowMs } = { ...DEFAULTS, ...limits };
  const failures = new Map<string, number[]>();
  const recent = (key: string, now: number) => {
    const kept = (failures.get(key) ?? []).filter((at) => now - at < windowMs);
    if (kept.length === 0) failures.delete(key);
    else failures.set(key, kept);
    return kept;
  };
  const wait = (key: string, limit: number, now: number) => {
    const kept = recent(key, now);
    return kept.length < limit ? 0 : Math.ceil((kept[kept.length - limit]! + windowMs - now) / 1000);
  };
  return {
    retryAfter(name, address) {
      const now = Date.now();
      return Math.max(wait(`name:${name.toLowerCase()}`, perName, now), wait(`addr:${address}`, perAddress, now));
    },
    failed(name, address) {
      const now = Date.now();
      for (const key of [`name:${name.toLowerCase()}`, `addr:${address}`])
        failures.set(key, [...recent(key, now), now]);
      if (failures.size > 100_000) failures.clear();
    },
    succeeded(name) {
      failures.delete(`name:${name.toLowerCase()}`);
    },
  };
}
