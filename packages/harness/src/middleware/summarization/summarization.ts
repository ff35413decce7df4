/**
 * Chain slot 6: keeps a long thread inside the model's window by replacing its older messages with a
 * summary held in `summary_text`.
 *
 * The summary is never written as a message (it was once mistaken for user input, deer-flow PR #3887):
 * durable context projects it into each request. The cut never splits a tool call from its results; the
 * removed messages go to the full-history archive first; and when no summary can be produced (errors,
 * timeouts, blank text) the state is left as it was and the run goes on.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import type { AnyHistoryArchive } from "../../history/history-archive.js";
import { type TokenCounter, createTokenCounter } from "../../model/tokens.js";
import { threadStateSubset } from "../../state/thread-state.js";
import { renderDurableContext } from "../durable-context/durable-context-render.js";
import { renderGoalReminder } from "../durable-context/goal-reminder.js";
import { findSafeCutoff } from "./summarization-cutoff.js";
import { DEFAULT_SUMMARY_PROMPT, buildSummaryInput, fillSummaryPrompt } from "./summarization-input.js";
import {
  type ContextSize,
  type PolicyMeasure,
  findMetTrigger,
  keepCutoff,
  worthCompacting,
} from "./summarization-policy.js";
import { generateSummary } from "./summary-generation.js";
import type { Logger } from "../../logger.js";

/** Options of {@link summarizationMiddleware}. */
export interface SummarizationOptions {
  /** Summarizer candidates in order: the configured summary model, then the run's model. */
  models: BaseChatModel[];
  /** Fires when any is met. */
  trigger: ContextSize | ContextSize[];
  /** How much of the thread stays as messages. */
  keep: ContextSize;
  /** Budget of the summarizer's input (previous summary + messages); null: no trimming. */
  trimTokensToSummarize: number | null;
  /** Instructions with a `{messages}` placeholder; default {@link DEFAULT_SUMMARY_PROMPT}. */
  summaryPrompt?: string;
  /** The model's input window; needed by `fraction` sizes. */
  maxInputTokens?: number;
  /** Default: the approximate counter. Pass `createTokenCounter(modelName)` for tiktoken models. */
  tokenCounter?: TokenCounter;
  /** Tokens every request carries besides messages (system prompt, tool schemas): `countTokens([], { model, tools, systemPrompt })`. */
  overheadTokens?: number;
  /** Where removed messages are kept; without it (or without a thread id) they are not archived. */
  archive?: AnyHistoryArchive;
  /** Receives every warning (skipped compaction, unusable option). Default: `console.warn`. */
  onWarning?: (message: string) => void;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
  /** Per-candidate time limit. Default 120 s. */
  timeoutMs?: number;
}

/** Index of the latest user message that is not hidden (injected) context, or -1. */
export function latestUserMessageIndex(messages: readonly BaseMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.type === "human" && !message.additional_kwargs?.hide_from_ui) return index;
  }
  return -1;
}

/** Messages that remove `removed` from state: by id, or (when one lacks an id) by rewriting the list. */
function removals(removed: readonly BaseMessage[], kept: readonly BaseMessage[]): BaseMessage[] {
  if (removed.every((message) => message.id)) return removed.map((message) => new RemoveMessage({ id: message.id! }));
  return [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...kept];
}

/**
 * Builds the summarization middleware.
 *
 * @example
 * summarizationMiddleware({
 *   models: [runModel],
 *   trigger: [{ type: "fraction", value: 0.8 }, { type: "messages", value: 50 }],
 *   keep: { type: "messages", value: 20 },
 *   trimTokensToSummarize: 4000,
 *   maxInputTokens: 128_000,
 *   tokenCounter: createTokenCounter("gpt-4o"),
 *   archive: createHistoryArchive(`${home}/checkpoints.sqlite`),
 * });
 */
export function summarizationMiddleware(options: SummarizationOptions) {
  const warn = options.onWarning ?? ((message: string) => console.warn(`[summarization] ${message}`));
  const triggers = Array.isArray(options.trigger) ? options.trigger : [options.trigger];
  const measure: PolicyMeasure = {
    tokenCounter: options.tokenCounter ?? createTokenCounter(),
    maxInputTokens: options.maxInputTokens,
    overheadTokens: options.overheadTokens,
  };
  const countText = (text: string) => measure.tokenCounter([new HumanMessage(text)]);
  const prompt = options.summaryPrompt ?? DEFAULT_SUMMARY_PROMPT;
  if (options.maxInputTokens === undefined) {
    if (triggers.some((t) => t.type === "fraction"))
      warn(
        "a `fraction` trigger needs the model's max_input_tokens; it is ignored. Set max_input_tokens on the model entry.",
      );
    if (options.keep.type === "fraction")
      warn("a `fraction` keep needs the model's max_input_tokens; keeping the last 20 messages instead.");
  }

  return createMiddleware({
    name: "summarization",
    // The ledger, skills, notes and goal are read only to count what durable context adds to every request.
    stateSchema: threadStateSubset("summary_text", "delegations", "skill_context", "task_notes", "goal"),
    beforeModel: async (state, runtime) => {
      const messages = state.messages;
      const previous = state.summary_text ?? null;
      const block = renderDurableContext({
        summaryText: previous,
        delegations: state.delegations,
        skills: state.skill_context,
        taskNotes: state.task_notes,
      });
      const goal = state.goal ? renderGoalReminder(state.goal) : null;
      const projected = block !== null && goal !== null ? `${block}\n${goal}` : (block ?? goal);
      const trigger = findMetTrigger(triggers, messages, projected, measure);
      if (trigger === null) return undefined;
      const cut = findSafeCutoff(messages, keepCutoff(messages, options.keep, measure));
      if (cut <= 0) return undefined;

      // The latest user message is the current request: it stays even if older than the cut.
      const rescued = latestUserMessageIndex(messages);
      const compacted = messages.slice(0, cut);
      const removed = compacted.filter((_, index) => index !== rescued);
      if (removed.length === 0) return undefined;
      // A token trigger met again right after a compaction waits until compacting frees a fair share of it
      // (a message-count trigger that is met as well still fires).
      if (!worthCompacting(trigger, removed, measure)) {
        const byCount = findMetTrigger(
          triggers.filter((t) => t.type === "messages"),
          messages,
          projected,
          measure,
        );
        if (byCount === null) {
          options.logger?.debug(
            `trigger ${trigger.type} ${trigger.value} met, but only ${removed.length} message(s) could be compacted; waiting for more`,
          );
          return undefined;
        }
      }

      const input = buildSummaryInput({
        previousSummary: previous,
        messages: removed,
        budgetTokens: options.trimTokensToSummarize,
        countText,
      });
      const outcome = await generateSummary(options.models, fillSummaryPrompt(prompt, input), {
        timeoutMs: options.timeoutMs,
      });
      if (!("summary" in outcome)) {
        options.logger?.warn(`summarizer failed; nothing compacted: ${outcome.failures.join("; ")}`);
        warn(
          `no summary could be produced, so nothing was compacted this turn (trigger ${trigger.type} ${trigger.value}): ${outcome.failures.join("; ")}`,
        );
        return undefined;
      }

      const threadId = runtime.configurable?.thread_id;
      if (options.archive && threadId) {
        try {
          await options.archive.append(String(threadId), compacted, {
            compactedAt: new Date().toISOString(),
            summary: outcome.summary,
          });
        } catch (error) {
          warn(
            `the history archive could not be written, so nothing was compacted this turn: ${error instanceof Error ? error.message : String(error)}`,
          );
          return undefined;
        }
      }
      const kept = messages.filter((message) => !removed.includes(message));
      options.logger?.info(
        `compacted ${removed.length} message(s) into a summary (trigger ${trigger.type} ${trigger.value})`,
      );
      return { summary_text: outcome.summary, messages: removals(removed, kept) };
    },
  });
}
