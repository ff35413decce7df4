/**
 * Records the tokens each run and each thread use, and ends a run that passes its token budget.
 *
 * After every model call the response's `usage_metadata` (input and output tokens, as the provider
 * reported them) is added to `run_token_usage` (reset when a run starts) and `token_usage` (the
 * thread's total since it began). Both live in state, so the CLI's `--json` and the server's
 * token-usage route read them from the checkpoint. With a budget set, a response that brings the run
 * to `maxTokens` or more has its tool calls taken out and a note appended: the run ends there, cleanly,
 * with title and memory still run. Only the lead's own model calls count; subagents, titles, summaries
 * and memory updates are not included.
 */
import { AIMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { stopWithNote } from "./stop-run.js";
import type { Logger } from "../logger.js";
import { TokenCounts } from "../state/shapes.js";

/** Token counts of a run or a thread. */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
}

const stateSchema = z.object({
  /** The thread's total over all runs. */
  token_usage: TokenCounts.optional(),
  /** The current (or last) run's total. */
  run_token_usage: TokenCounts.optional(),
});

/** Options of {@link tokenUsageMiddleware}. */
export interface TokenUsageOptions {
  /** Input + output tokens a run may use; undefined for no budget. */
  maxTokens?: number;
  /** The config key named in the stop note, so the reader knows what to raise. Default `token_budget.max_tokens`. */
  budgetKey?: string;
  /** Receives a message when a run is stopped. Default: `console.warn`. */
  onWarning?: (message: string) => void;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

const ZERO: TokenUsage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };

/** `usage` plus the usage an AI message reports (missing counts are 0). */
export function addUsage(usage: TokenUsage | undefined, message: AIMessage): TokenUsage {
  const base = usage ?? ZERO;
  const input = nonNegative(message.usage_metadata?.input_tokens);
  const output = nonNegative(message.usage_metadata?.output_tokens);
  return {
    input_tokens: base.input_tokens + input,
    output_tokens: base.output_tokens + output,
    total_tokens: base.total_tokens + input + output,
  };
}

function nonNegative(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/**
 * Chain slot 11c: token accounting for every run, and the optional per-run budget.
 *
 * @example
 * createAgent({ model, tools, middleware: [tokenUsageMiddleware({ maxTokens: 200_000 })] });
 */
export function tokenUsageMiddleware(options: TokenUsageOptions = {}) {
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  return createMiddleware({
    name: "token-usage",
    stateSchema,
    beforeAgent: () => ({ run_token_usage: { ...ZERO } }),
    afterModel: (state) => {
      const last = state.messages.at(-1);
      if (!last || !AIMessage.isInstance(last)) return undefined;
      const run = addUsage(state.run_token_usage, last);
      const update = { run_token_usage: run, token_usage: addUsage(state.token_usage, last) };
      if (options.maxTokens === undefined || run.total_tokens < options.maxTokens || !last.tool_calls?.length)
        return update;
      options.logger?.info(
        `budget of ${options.maxTokens} tokens reached (${run.total_tokens} used); stopping the run`,
      );
      warn(
        `token-usage: this run used ${run.total_tokens} tokens, over its budget of ${options.maxTokens}; the run was stopped.`,
      );
      const note =
        `[Stopped: this run used ${run.total_tokens.toLocaleString("en-US")} tokens (input + output), over its budget of ` +
        `${options.maxTokens.toLocaleString("en-US")} (${options.budgetKey ?? "token_budget.max_tokens"}). Continue in a new message, or raise the budget.]`;
      return { ...update, messages: [stopWithNote(last, note, "token_capped")] };
    },
  });
}
