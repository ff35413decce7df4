/**
 * One compaction of a thread's state, shared by the middleware (a trigger fired before a model call) and
 * manual compaction (`/compact`, `harness.compact`): measure, cut, summarize, run the
 * `before_summarization` hooks, archive, and say what to remove. Nothing is written here; the caller
 * applies the returned update (the middleware returns it from `beforeModel`, manual compaction writes
 * it as a new checkpoint).
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import type { AnyHistoryArchive } from "../../history/history-archive.js";
import type { Logger } from "../../logger.js";
import { isSystemReminder } from "../../messages/system-reminder.js";
import { type TokenCounter, createTokenCounter } from "../../model/tokens.js";
import type { ThreadState } from "../../state/thread-state.js";
import { renderDurableContext } from "../durable-context/durable-context-render.js";
import { renderGoalReminder } from "../durable-context/goal-reminder.js";
import { findSafeCutoff } from "./summarization-cutoff.js";
import { type BeforeSummarizationHook, runBeforeSummarizationHooks } from "./summarization-hooks.js";
import { DEFAULT_SUMMARY_PROMPT, buildSummaryInput, fillSummaryPrompt } from "./summarization-input.js";
import {
  type ContextSize,
  type PolicyMeasure,
  findMetTrigger,
  keepCutoff,
  worthCompacting,
} from "./summarization-policy.js";
import { generateSummary } from "./summary-generation.js";

/** Options of {@link createCompactor}; the summarization middleware's options. */
export interface CompactorOptions {
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
  /**
   * Tokens every request carries besides messages (system prompt, tool schemas): `countTokens([], { model,
   * tools, systemPrompt })`. Token triggers do not count it (compaction cannot shrink it); with
   * `maxInputTokens` it caps their budget at what the window leaves.
   */
  overheadTokens?: number;
  /** Where removed messages are kept; without it (or without a thread id) they are not archived. */
  archive?: AnyHistoryArchive;
  /** Called with the messages about to be removed, once their summary exists (see summarization-hooks.ts). */
  beforeSummarization?: readonly BeforeSummarizationHook[];
  /** The custom agent the chain is built for, passed to the hooks. */
  agentName?: string;
  /** Receives every warning (skipped compaction, unusable option). Default: `console.warn`. */
  onWarning?: (message: string) => void;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
  /** Per-candidate time limit. Default 120 s. */
  timeoutMs?: number;
}

/** The state one compaction reads. */
export interface CompactionState {
  messages: BaseMessage[];
  summary_text?: string | null;
  delegations?: ThreadState["delegations"] | null;
  skill_context?: ThreadState["skill_context"] | null;
  task_notes?: ThreadState["task_notes"] | null;
  goal?: ThreadState["goal"] | null;
}

/** What to compact and how. */
export interface CompactRequest {
  /** The thread; the archive and the hooks need it. */
  threadId?: string;
  /** Compact even when no trigger is met (manual `/compact`). */
  force?: boolean;
  /** The keep policy of this compaction only; default the configured one. */
  keep?: ContextSize;
}

/** Why nothing was compacted. */
export type NotCompactedReason =
  /** No trigger is met (automatic compaction only). */
  | "not_needed"
  /** Everything is in the kept tail, or only the current request and reminders are older. */
  | "not_enough_messages"
  /** No summarizer candidate produced a summary. */
  | "summary_failed"
  /** The history archive could not be written. */
  | "archive_failed";

/**
 * The result of one compaction attempt. `totalTokens` is the size of the thread's next request: messages,
 * durable context, system prompt and tool schemas (a token trigger measures it without the last two).
 */
export type CompactionOutcome =
  | {
      compacted: true;
      summary: string;
      removed: BaseMessage[];
      preserved: BaseMessage[];
      totalTokens: number;
      /** The state update that applies it: the new summary and the removals. */
      update: { summary_text: string; messages: BaseMessage[] };
    }
  | { compacted: false; reason: NotCompactedReason; detail?: string; totalTokens: number };

/** Compacts a thread's state on request; see {@link createCompactor}. */
export type Compactor = (state: CompactionState, request?: CompactRequest) => Promise<CompactionOutcome>;

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

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Builds the compaction the summarization middleware runs before each model call, for callers that
 * compact on their own (manual `/compact`).
 *
 * @example
 * const compact = createCompactor({ models: [model], trigger: { type: "messages", value: 50 }, keep: { type: "messages", value: 20 }, trimTokensToSummarize: 4000 });
 * const outcome = await compact(state, { threadId: "t1", force: true });
 * if (outcome.compacted) await graph.updateState(config, outcome.update);
 */
export function createCompactor(options: CompactorOptions): Compactor {
  const warn = options.onWarning ?? ((message: string) => console.warn(`[summarization] ${message}`));
  const triggers = Array.isArray(options.trigger) ? options.trigger : [options.trigger];
  const measure: PolicyMeasure = {
    tokenCounter: options.tokenCounter ?? createTokenCounter(),
    maxInputTokens: options.maxInputTokens,
    overheadTokens: options.overheadTokens,
  };
  const countText = (text: string) => measure.tokenCounter([new HumanMessage(text)]);
  const prompt = options.summaryPrompt ?? DEFAULT_SUMMARY_PROMPT;
  const hooks = options.beforeSummarization ?? [];

  return async (state, request = {}) => {
    const messages = state.messages;
    const previous = state.summary_text ?? null;
    const block = renderDurableContext({
      summaryText: previous,
      delegations: state.delegations ?? undefined,
      skills: state.skill_context ?? undefined,
      taskNotes: state.task_notes ?? undefined,
    });
    // The goal reminder rides with every request too, right after the durable block.
    const goal = state.goal ? renderGoalReminder(state.goal) : null;
    const projected = block !== null && goal !== null ? `${block}\n${goal}` : (block ?? goal);
    const totalTokens =
      measure.tokenCounter(projected ? [...messages, new HumanMessage(projected)] : messages) +
      (measure.overheadTokens ?? 0);
    const skip = (reason: NotCompactedReason, detail?: string): CompactionOutcome => ({
      compacted: false,
      reason,
      totalTokens,
      ...(detail !== undefined && { detail }),
    });
    const trigger = findMetTrigger(triggers, messages, projected, measure);
    if (trigger === null && !request.force) return skip("not_needed");
    const cut = findSafeCutoff(messages, keepCutoff(messages, request.keep ?? options.keep, measure));
    if (cut <= 0) return skip("not_enough_messages");

    // The latest user message is the current request, and reminders were written for the model: both stay
    // even if older than the cut.
    const rescued = latestUserMessageIndex(messages);
    const compacted = messages.slice(0, cut);
    const removed = compacted.filter((message, index) => index !== rescued && !isSystemReminder(message));
    if (removed.length === 0) return skip("not_enough_messages");
    // A token trigger met again right after a compaction waits until compacting frees a fair share of it
    // (a message-count trigger that is met as well still fires). A forced compaction always goes ahead.
    if (trigger !== null && !request.force && !worthCompacting(trigger, removed, measure)) {
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
        return skip("not_needed");
      }
    }
    const cause = trigger === null || request.force ? "requested" : `trigger ${trigger.type} ${trigger.value}`;

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
      const detail = outcome.failures.join("; ");
      options.logger?.warn(`summarizer failed; nothing compacted: ${detail}`);
      warn(`no summary could be produced, so nothing was compacted this turn (${cause}): ${detail}`);
      return skip("summary_failed", detail);
    }

    if (options.archive && request.threadId) {
      try {
        await options.archive.append(request.threadId, compacted, {
          compactedAt: new Date().toISOString(),
          summary: outcome.summary,
        });
      } catch (error) {
        warn(`the history archive could not be written, so nothing was compacted this turn: ${errorText(error)}`);
        return skip("archive_failed", errorText(error));
      }
    }
    const kept = messages.filter((message) => !removed.includes(message));
    await runBeforeSummarizationHooks(
      hooks,
      {
        messages: removed,
        preserved: kept,
        thread: messages,
        threadId: request.threadId,
        agentName: options.agentName,
        manual: !!request.force,
      },
      (name, error) => {
        options.logger?.warn(`before_summarization hook ${name} failed; compaction goes on: ${errorText(error)}`);
        warn(`the before_summarization hook ${name} failed (compaction went on): ${errorText(error)}`);
      },
    );
    options.logger?.info(`compacted ${removed.length} message(s) into a summary (${cause})`);
    return {
      compacted: true,
      summary: outcome.summary,
      removed,
      preserved: kept,
      totalTokens,
      update: { summary_text: outcome.summary, messages: removals(removed, kept) },
    };
  };
}
