/**
 * A circuit breaker per model endpoint, shared by every run of the process. When a provider is down,
 * each run would otherwise spend its full retry budget (minutes of backoff) before failing, and a busy
 * server would keep hammering an endpoint that is already failing. After `failureThreshold` calls in a
 * row failed for a reason that passes (5xx, 429, timeout, dropped connection; each call already retried
 * by model-retry), the endpoint is paused for `cooldownMs`: runs fail at once with a message naming the
 * model and when it will be tried again. After the pause one call goes through as a probe; its success
 * closes the circuit, its failure starts a new pause. Other errors (401, 400, context length) say
 * nothing about the endpoint's health and are not counted.
 */

/** Limits of one circuit. */
export interface CircuitLimits {
  /** Failed calls in a row that open the circuit; 0 turns the breaker off. */
  failureThreshold: number;
  /** How long an open circuit refuses calls. */
  cooldownMs: number;
}

/** What {@link ModelCircuits.admit} decided: go ahead (maybe as the probe), or refused until `retryAt`. */
export type CircuitDecision =
  | { admitted: true; probe: boolean }
  | { admitted: false; retryAt: number; waitMs: number; failures: number; lastError: string };

interface CircuitState {
  failures: number;
  openUntil: number;
  probing: boolean;
  lastError: string;
}

/**
 * The circuits of all model endpoints, keyed by endpoint (`use`, model and base URL).
 *
 * @example
 * const circuits = new ModelCircuits();
 * const limits = { failureThreshold: 5, cooldownMs: 60_000 };
 * if (!circuits.admit(key, limits).admitted) throw new Error("paused");
 */
export class ModelCircuits {
  readonly #states = new Map<string, CircuitState>();
  readonly #now: () => number;

  /** `now` is the clock (tests pass a fake one). */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Whether a call to `key` may go out now. While a probe is out, others are refused. */
  admit(key: string, limits: CircuitLimits): CircuitDecision {
    const state = this.#states.get(key);
    if (limits.failureThreshold <= 0 || !state || state.failures < limits.failureThreshold)
      return { admitted: true, probe: false };
    const now = this.#now();
    if (now < state.openUntil || state.probing) {
      const retryAt = Math.max(state.openUntil, now);
      return { admitted: false, retryAt, waitMs: retryAt - now, failures: state.failures, lastError: state.lastError };
    }
    state.probing = true;
    return { admitted: true, probe: true };
  }

  /** A call to `key` answered: the circuit closes. */
  succeeded(key: string): void {
    this.#states.delete(key);
  }

  /** A call to `key` failed for a reason that passes; at the threshold (or a failed probe) the pause starts. */
  failed(key: string, limits: CircuitLimits, error: string): void {
    const state = this.#states.get(key) ?? { failures: 0, openUntil: 0, probing: false, lastError: "" };
    state.failures += 1;
    state.lastError = error;
    state.probing = false;
    if (limits.failureThreshold > 0 && state.failures >= limits.failureThreshold)
      state.openUntil = this.#now() + limits.cooldownMs;
    this.#states.set(key, state);
  }

  /** A call ended without saying anything about the endpoint (aborted, a 400): a probe slot is freed. */
  released(key: string): void {
    const state = this.#states.get(key);
    if (state) state.probing = false;
  }
}

/** The circuits of this process: what the lead and subagent chains use unless given others. */
export const processModelCircuits = new ModelCircuits();
