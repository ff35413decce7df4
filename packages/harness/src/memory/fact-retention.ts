/**
 * Which facts stay when memory is full. Ranking by confidence alone forgets what the user keeps
 * confirming as readily as a guess that was never mentioned again, and can push out the corrections that
 * stop the agent from repeating a mistake. So a fact's standing is its confidence plus a share for use
 * (recent explicit confirmations, fading with a 90-day half-life), and a tenth of the slots (at most 10)
 * is held for corrections. A fact never confirmed ranks by confidence alone, as before.
 */
import type { MemoryFact } from "./memory-schema.js";

/** Weight of use against confidence in a fact's standing (DeerFlow's hybrid policy: 0.25 for confirmation). */
const USE_WEIGHT = 0.25;
/** A confirmation's weight halves every 90 days (DeerFlow's confirmation half-life). */
const CONFIRMATION_HALF_LIFE_MS = 90 * 24 * 60 * 60 * 1000;
/** Confirmations at which use counts fully. */
const FULL_USE_CONFIRMATIONS = 3;
/** Share of the slots held for corrections, and the most held (DeerFlow: 10%, at most 10). */
const CORRECTION_SHARE = 0.1;
const CORRECTION_SLOTS_MAX = 10;

/**
 * How much a fact has been used, 0 to 1: its confirmations (3 count fully), weighted by how recent the
 * last one is. 0 for a fact never confirmed.
 */
export function factUse(fact: MemoryFact, now: Date): number {
  const confirmedAt = Date.parse(fact.lastConfirmedAt ?? "");
  if (!Number.isFinite(confirmedAt)) return 0;
  const count = Math.min(FULL_USE_CONFIRMATIONS, Math.max(1, fact.confirmationCount ?? 1));
  const age = Math.max(0, now.getTime() - confirmedAt);
  return (count / FULL_USE_CONFIRMATIONS) * 2 ** (-age / CONFIRMATION_HALF_LIFE_MS);
}

/** A fact's standing when memory is full: mostly confidence, partly use. */
export function retentionScore(fact: MemoryFact, now: Date): number {
  return (1 - USE_WEIGHT) * fact.confidence + USE_WEIGHT * factUse(fact, now);
}

/**
 * Keeps the `max` facts with the best standing (ties: newest), in their original order. Corrections
 * first get up to a tenth of the slots (at most 10) among themselves; slots they do not need go to the
 * rest.
 *
 * @example
 * capFacts([guess(0.75), confirmedTwiceLastWeek(0.75), correction(0.7)], 2, now);
 * // [confirmedTwiceLastWeek, correction]: the unconfirmed guess goes
 */
export function capFacts(facts: MemoryFact[], max: number, now: Date = new Date()): MemoryFact[] {
  if (facts.length <= max) return facts;
  const slots = Math.max(0, max);
  const ranked = facts
    .map((fact, index) => ({ fact, index, score: retentionScore(fact, now) }))
    .sort((a, b) => b.score - a.score || b.fact.createdAt.localeCompare(a.fact.createdAt) || b.index - a.index);
  const kept = new Set<number>();
  const reserved = Math.min(CORRECTION_SLOTS_MAX, Math.ceil(slots * CORRECTION_SHARE));
  for (const entry of ranked.filter((entry) => entry.fact.category === "correction").slice(0, reserved)) {
    kept.add(entry.index);
  }
  for (const entry of ranked) {
    if (kept.size >= slots) break;
    kept.add(entry.index);
  }
  return facts.filter((_, index) => kept.has(index));
}
