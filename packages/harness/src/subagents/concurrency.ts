/**
 * How many `task` calls one lead response may run at once.
 *
 * The subagent-limit middleware enforces the number and the prompt section announces it; both go
 * through this clamp so the model is never told a limit other than the one applied.
 */
import { SUBAGENTS_DEFAULTS } from "../config/defaults.js";

/** Lower bound of the per-response limit: 1 means subagents run one at a time (DeerFlow's current rule). */
export const MIN_CONCURRENT_SUBAGENTS = 1;
/** Upper bound of the per-response limit. */
export const MAX_CONCURRENT_SUBAGENTS = 4;
/** The limit when none is configured. */
export const DEFAULT_CONCURRENT_SUBAGENTS = SUBAGENTS_DEFAULTS.max_concurrent;

/** Clamps a configured limit to [1, 4]; `undefined` or a non-number gives the default 3. */
export function clampMaxConcurrent(value: number | undefined | null): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return DEFAULT_CONCURRENT_SUBAGENTS;
  return Math.min(MAX_CONCURRENT_SUBAGENTS, Math.max(MIN_CONCURRENT_SUBAGENTS, Math.floor(value)));
}

/** Lower and upper bound of `subagents.max_total_per_run`, and its default (DeerFlow's). */
export const MIN_TOTAL_SUBAGENTS = 1;
export const MAX_TOTAL_SUBAGENTS = 50;
export const DEFAULT_TOTAL_SUBAGENTS = SUBAGENTS_DEFAULTS.max_total_per_run;

/** Clamps the per-run cap of `task` calls to [1, 50]; `undefined` or a non-number gives the default 6. */
export function clampMaxTotal(value: number | undefined | null): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return DEFAULT_TOTAL_SUBAGENTS;
  return Math.min(MAX_TOTAL_SUBAGENTS, Math.max(MIN_TOTAL_SUBAGENTS, Math.floor(value)));
}
