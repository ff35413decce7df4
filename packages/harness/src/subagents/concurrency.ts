/**
 * How many `task` calls one lead response may run at once.
 *
 * The subagent-limit middleware enforces the number and the prompt section announces it; both go
 * through this clamp so the model is never told a limit other than the one applied.
 */

/** Lower bound of the per-response limit: below two, delegation would never run in parallel. */
export const MIN_CONCURRENT_SUBAGENTS = 2;
/** Upper bound of the per-response limit. */
export const MAX_CONCURRENT_SUBAGENTS = 4;
/** The limit when none is configured. */
export const DEFAULT_CONCURRENT_SUBAGENTS = 3;

/** Clamps a configured limit to [2, 4]; `undefined` or a non-number gives the default 3. */
export function clampMaxConcurrent(value: number | undefined | null): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return DEFAULT_CONCURRENT_SUBAGENTS;
  return Math.min(MAX_CONCURRENT_SUBAGENTS, Math.max(MIN_CONCURRENT_SUBAGENTS, Math.floor(value)));
}
