/**
 * When summarization fires and how much of the thread it keeps: the pure policy half of summarization.
 *
 * Users of every harness report compaction that never fires (deer-flow#3103, deepagentsjs#517), most often
 * because the count ignored something the request carries. Here a token budget is measured on what
 * compaction acts on: the messages plus the durable-context block (summary, delegation ledger, active
 * skills) projected into every request. The fixed overhead (system prompt and tool schemas) is not
 * counted against the budget, since no compaction can shrink it (counting it made a budget below it
 * fire on every other call); when the model's window is known, the budget is capped at the window
 * minus that overhead, so the whole request still fits.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { TokenCounter } from "../../model/tokens.js";

/** A threshold: absolute tokens, a message count, or a fraction of the model's `max_input_tokens`. */
export interface ContextSize {
  type: "tokens" | "messages" | "fraction";
  value: number;
}

/** What the policy needs to measure a thread. */
export interface PolicyMeasure {
  tokenCounter: TokenCounter;
  /** The model's input window; `fraction` sizes need it. */
  maxInputTokens?: number;
  /**
   * Tokens every request carries besides its messages (system prompt, tool schemas). Default 0. Not
   * measured against a budget; with `maxInputTokens` it caps the budget at the window minus it.
   */
  overheadTokens?: number;
}

/** Keep used when a `fraction` keep cannot be resolved (no `maxInputTokens`). */
export const FALLBACK_KEEP: ContextSize = { type: "messages", value: 20 };

/** The token budget a `tokens` or `fraction` size stands for, or null when it cannot be resolved. */
export function sizeInTokens(size: ContextSize, maxInputTokens: number | undefined): number | null {
  if (size.type === "tokens") return size.value;
  if (size.type === "fraction") return maxInputTokens ? Math.floor(size.value * maxInputTokens) : null;
  return null;
}

/**
 * The budget a token-sized trigger holds the messages (and durable block) to: its size, capped at what
 * the window leaves besides the fixed overhead when the window is known. Null for a message count or an
 * unresolvable `fraction`.
 */
export function messageBudget(size: ContextSize, measure: PolicyMeasure): number | null {
  const budget = sizeInTokens(size, measure.maxInputTokens);
  if (budget === null || measure.maxInputTokens === undefined) return budget;
  return Math.max(0, Math.min(budget, measure.maxInputTokens - (measure.overheadTokens ?? 0)));
}

/**
 * Returns the first trigger the thread meets (OR semantics), or null. `projected` is the text sent with
 * every request besides the messages (the rendered durable context, which holds the previous summary):
 * it counts as one more message, in tokens and in number. A `fraction` trigger without `maxInputTokens`
 * never fires (the middleware warns about it once, at construction).
 */
export function findMetTrigger(
  triggers: readonly ContextSize[],
  messages: readonly BaseMessage[],
  projected: string | null | undefined,
  measure: PolicyMeasure,
): ContextSize | null {
  const counted = projected ? [...messages, new HumanMessage(projected)] : [...messages];
  let tokens: number | undefined;
  for (const trigger of triggers) {
    if (trigger.type === "messages") {
      if (counted.length >= trigger.value) return trigger;
      continue;
    }
    const budget = messageBudget(trigger, measure);
    if (budget === null) continue;
    tokens ??= measure.tokenCounter(counted);
    if (tokens >= budget) return trigger;
  }
  return null;
}

/**
 * The least a compaction fired by a token trigger must take out of the thread, as a share of the
 * trigger's budget. The count includes what compaction cannot remove (the durable block and the kept
 * tail, which can be large when its tool results are), so a budget close to that floor is met again
 * right after each compaction: without this, each model call would pay a summarizer call to remove a
 * message or two.
 */
export const MIN_COMPACTED_SHARE = 0.2;

/**
 * Whether compacting `removed` answers `trigger`: always for a message-count trigger; for a token
 * trigger, when the removed messages hold at least {@link MIN_COMPACTED_SHARE} of its budget.
 */
export function worthCompacting(
  trigger: ContextSize,
  removed: readonly BaseMessage[],
  measure: PolicyMeasure,
): boolean {
  const budget = messageBudget(trigger, measure);
  if (trigger.type === "messages" || budget === null) return true;
  return measure.tokenCounter([...removed]) >= budget * MIN_COMPACTED_SHARE;
}

/**
 * The index where the kept tail starts under the keep policy, before tool-pair safety is applied:
 * `messages N` keeps the last N; `tokens`/`fraction` keep the longest tail within the budget (at least
 * the last message). Everything before the index is to be summarized.
 */
export function keepCutoff(messages: readonly BaseMessage[], keep: ContextSize, measure: PolicyMeasure): number {
  const budget = sizeInTokens(keep, measure.maxInputTokens);
  if (keep.type === "messages" || budget === null) {
    const count = keep.type === "messages" ? Math.floor(keep.value) : FALLBACK_KEEP.value;
    return Math.max(0, messages.length - count);
  }
  let used = 0;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    used += measure.tokenCounter([messages[index]!]);
    if (used > budget) return Math.min(index + 1, messages.length - 1);
  }
  return 0;
}
