/**
 * Learns from one finished conversation: asks the memory model for an update and applies it to the
 * store. It runs in the background after the user already has their answer, so it never throws: a model
 * that errors, returns malformed JSON or the wrong shape leaves memory exactly as it was and reports a
 * warning. The model call happens outside the store's lock; only the short apply-and-write holds it.
 * The call is tagged `nostream`: it may run inside a graph's context (the queue's timer inherits it), and
 * its JSON must never reach a user's `messages` stream.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { applyMemoryUpdate } from "./apply-update.js";
import { contentText } from "../messages/content.js";
import type { MemoryTurn } from "./conversation-filter.js";
import type { MemoryStore } from "./memory-store.js";
import { parseMemoryUpdate } from "./parse-update.js";
import { buildMemoryUpdateMessages } from "./update-prompt.js";
import type { MemorySignal } from "./memory-signals.js";
import { MEMORY_DEFAULTS } from "../config/defaults.js";

/** Options of `createMemoryUpdater`. */
export interface MemoryUpdaterOptions {
  /** The model asked for updates (`memory.model_name` or the run's model, thinking off). */
  model: BaseChatModel;
  store: MemoryStore;
  /** Facts below this confidence are dropped (default 0.7). */
  factConfidenceThreshold?: number;
  /** Most facts kept (default 100). */
  maxFacts?: number;
  /** Most characters of conversation shown to the model; older turns are cut first (default 40 000). */
  maxConversationChars?: number;
  /** Receives the reason whenever an update is skipped or fails. */
  onWarning?: (message: string) => void;
}

/**
 * What one update did; `applied` is false when memory was left unchanged because of a problem, and
 * `retry` is true when that problem may pass (the model or the memory file could not be reached), so the
 * conversation is worth trying again.
 */
export interface MemoryUpdateOutcome {
  applied: boolean;
  retry: boolean;
  added: number;
  removed: number;
  /** Stored facts the user confirmed. */
  reinforced: number;
  sectionsUpdated: string[];
}

/** Updates memory from conversations. */
export interface MemoryUpdater {
  /**
   * Learns from `conversation` (already filtered), recording `threadId` as the source of new facts.
   * `signals` (from `detectMemorySignals`, carried by the queued job) add hints to the prompt and allow
   * confirmations. `signal` cuts the model call short (silently, with `retry`). Never throws.
   */
  update(conversation: readonly MemoryTurn[], context: MemoryUpdateContext): Promise<MemoryUpdateOutcome>;
}

/** Where a conversation came from and what was noticed in it. */
export interface MemoryUpdateContext {
  threadId: string;
  /** The user corrected or confirmed the agent (absent: nothing noticed). */
  signals?: readonly MemorySignal[];
  /** Aborts the model call. */
  signal?: AbortSignal;
}

const unchanged: MemoryUpdateOutcome = {
  applied: false,
  retry: false,
  added: 0,
  removed: 0,
  reinforced: 0,
  sectionsUpdated: [],
};
const retryLater: MemoryUpdateOutcome = { ...unchanged, retry: true };

/** Tags of the update call: `nostream` keeps its tokens out of a graph's `messages` stream. */
export const MEMORY_UPDATE_TAGS = ["nostream", "langsmith:nostream", "middleware:memory"];

/**
 * Creates the memory updater.
 *
 * @example
 * const updater = createMemoryUpdater({ model, store, onWarning: console.warn });
 * await updater.update([{ role: "user", content: "I prefer TypeScript" }, { role: "assistant", content: "Noted." }], { threadId: "t1" });
 */
export function createMemoryUpdater(options: MemoryUpdaterOptions): MemoryUpdater {
  const warn = options.onWarning ?? (() => {});
  const threshold = options.factConfidenceThreshold ?? MEMORY_DEFAULTS.fact_confidence_threshold;
  const maxFacts = options.maxFacts ?? MEMORY_DEFAULTS.max_facts;

  async function update(
    conversation: readonly MemoryTurn[],
    { threadId, signals, signal }: MemoryUpdateContext,
  ): Promise<MemoryUpdateOutcome> {
    if (!conversation.some((turn) => turn.role === "user")) return unchanged;
    let reply: string;
    try {
      const current = options.store.load();
      const response = await options.model.invoke(
        buildMemoryUpdateMessages(current, conversation, {
          maxConversationChars: options.maxConversationChars,
          signals,
        }),
        { tags: MEMORY_UPDATE_TAGS, ...(signal ? { signal } : {}) },
      );
      reply = contentText(response.content, "\n");
    } catch (error) {
      if (signal?.aborted) return retryLater;
      warn(
        `Memory update for thread ${threadId} skipped for now: the memory model failed (${(error as Error).message}). Memory is unchanged; the conversation stays queued.`,
      );
      return retryLater;
    }
    const parsed = parseMemoryUpdate(reply);
    if (!parsed.ok) {
      warn(`Memory update for thread ${threadId} skipped: ${parsed.reason}. Memory is unchanged.`);
      return unchanged;
    }
    try {
      let outcome = unchanged;
      options.store.update((memory) => {
        const applied = applyMemoryUpdate(memory, parsed.update, {
          threadId,
          factConfidenceThreshold: threshold,
          maxFacts,
          signals,
        });
        outcome = {
          applied: true,
          retry: false,
          added: applied.added.length,
          removed: applied.removed.length,
          reinforced: applied.reinforced.length,
          sectionsUpdated: applied.sectionsUpdated,
        };
        return applied.memory;
      });
      return outcome;
    } catch (error) {
      warn(
        `Memory update for thread ${threadId} could not be saved (${(error as Error).message}). Memory is unchanged; the conversation stays queued.`,
      );
      return retryLater;
    }
  }

  return { update };
}
