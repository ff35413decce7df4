/**
 * Counts the model tokens a run spends, for the per-user `tokens_per_day` quota (auth/quotas.ts).
 *
 * A callback handler on the run's config sees every model call made under the run (the lead's, and the
 * title and summary calls) and adds up the same `usage_metadata` (input + output) the token-usage
 * middleware reads. Subagents run detached from the run's callbacks (subagents/executor.ts), so their
 * totals come from the `task` tool's result (`subagent_token_usage`) instead: nothing is counted twice.
 * Counting calls as they end, rather than reading `run_token_usage` from the final state, stays right
 * for a run that is rolled back (its state is gone, its tokens were spent), resumed after an interrupt
 * (the state's counter is not reset then), or forked from an older checkpoint.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { LLMResult } from "@langchain/core/outputs";

/** `usage_metadata`'s counts, or the subagent totals of a task result. */
interface Counts {
  input_tokens?: unknown;
  output_tokens?: unknown;
}

const tokensOf = (usage: Counts | undefined): number => positive(usage?.input_tokens) + positive(usage?.output_tokens);

function positive(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/**
 * The meter; pass it in the run's `callbacks` and read `tokens` when the run is over.
 *
 * @example
 * const meter = new TokenMeter();
 * await graph.invoke(input, { callbacks: [meter] });
 * await recordTokens(context, owner, meter.tokens);
 */
export class TokenMeter extends BaseCallbackHandler {
  name = "deerflow_token_meter";
  /** Counted before the run goes on, so `tokens` is complete once the stream has ended. */
  override awaitHandlers = true;
  // Only model and tool ends count: every graph node and channel write is a chain run, and a handler that
  // does not ignore chains is called (and awaited) at each one's start.
  override ignoreChain = true;
  override ignoreRetriever = true;
  override ignoreCustomEvent = true;
  /** Input + output tokens so far. */
  tokens = 0;

  override handleLLMEnd(output: LLMResult): void {
    for (const generations of output.generations)
      for (const generation of generations)
        this.tokens += tokensOf((generation as { message?: { usage_metadata?: Counts } }).message?.usage_metadata);
  }

  override handleToolEnd(output: unknown): void {
    const metadata = (output as { additional_kwargs?: { subagent_token_usage?: Counts } } | null)?.additional_kwargs;
    this.tokens += tokensOf(metadata?.subagent_token_usage);
  }
}
