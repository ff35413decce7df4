/**
 * Spots, without a model call, the moments memory matters most: the user telling the agent it got
 * something wrong ("that's wrong, use uv"), or confirming that it got something right ("exactly what I
 * wanted"). A signal travels with the queued conversation to the updater, which then asks the memory
 * model to look for a correction (and what was wrong) or for stored facts the user just confirmed. Only
 * the user's own recent words count: an assistant apologising is not the user correcting it.
 */
import type { MemoryTurn } from "./conversation-filter.js";

/** What the user's recent words showed: they corrected the agent, or confirmed it. */
export type MemorySignal = "correction" | "reinforcement";

/** The turns looked at: the latest exchanges, not a correction made long ago in the thread (DeerFlow: 6). */
export const SIGNAL_WINDOW_TURNS = 6;

/** English and Chinese phrasings of "you got it wrong" (whole words, any case). */
const CORRECTION_PATTERNS: readonly RegExp[] = [
  /\bthat(?:'s|’s| is) (?:not (?:right|correct|what i (?:asked|meant|wanted))|wrong|incorrect)\b/i,
  /\byou(?: misunderstood| got it wrong|'re wrong|’re wrong| are wrong)\b/i,
  /\b(?:try|do it) again\b/i,
  /\bredo\b/i,
  /\bno[,.!]\s*i (?:meant|said)\b/i,
  /不对|错了|你理解错了|理解有误|重新来|重试|换一种|改用/,
];

/** English and Chinese phrasings of "yes, that is what I want" (whole words, any case). */
const REINFORCEMENT_PATTERNS: readonly RegExp[] = [
  /\b(?:yes|yep)[,.!]?\s+(?:exactly|perfect|that(?:'s|’s| is) (?:right|correct|it))\b/i,
  /\bexactly (?:right|correct|what i (?:wanted|needed|meant))\b/i,
  /\bthat(?:'s|’s| is) (?:exactly )?(?:right|correct|what i (?:wanted|needed|meant))\b/i,
  /\bperfect(?:[.!]|$)/i,
  /\bkeep (?:doing )?(?:it|that) (?:up|this way)\b|\bkeep doing that\b/i,
  /\bthis is (?:great|very helpful|what i wanted)\b/i,
  /就是这样|完全正确|就是这个意思|正是我想要的|继续保持/,
];

const matchesAny = (patterns: readonly RegExp[], text: string) => patterns.some((pattern) => pattern.test(text));

/**
 * The signals in the user turns among the last {@link SIGNAL_WINDOW_TURNS} turns, in a fixed order
 * (correction first). A message that reads as both ("that's not right... perfect, now it is") gives both.
 *
 * @example
 * detectMemorySignals([{ role: "user", content: "That's wrong, I use uv, not pip." }]); // ["correction"]
 * detectMemorySignals([{ role: "user", content: "Yes, exactly right!" }]);           // ["reinforcement"]
 */
export function detectMemorySignals(turns: readonly MemoryTurn[]): MemorySignal[] {
  const recent = turns
    .slice(-SIGNAL_WINDOW_TURNS)
    .filter((turn) => turn.role === "user")
    .map((turn) => turn.content);
  const signals: MemorySignal[] = [];
  if (recent.some((text) => matchesAny(CORRECTION_PATTERNS, text))) signals.push("correction");
  if (recent.some((text) => matchesAny(REINFORCEMENT_PATTERNS, text))) signals.push("reinforcement");
  return signals;
}

/** The union of two signal lists, in the fixed order; used when a newer conversation replaces a queued one. */
export function mergeMemorySignals(
  a: readonly MemorySignal[] | undefined,
  b: readonly MemorySignal[] | undefined,
): MemorySignal[] {
  const all = new Set([...(a ?? []), ...(b ?? [])]);
  return (["correction", "reinforcement"] as const).filter((signal) => all.has(signal));
}
