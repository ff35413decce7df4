/**
 * The built-in `before_summarization` hook: what compaction takes out of a thread is handed to memory
 * first, so a fact the user stated early in a long thread is learned even though the end-of-run
 * conversation no longer holds it.
 *
 * Only what memory has not learned from yet is sent. Each end-of-run conversation records the thread's
 * last message id, and once memory has learned from it (`learnedThrough`), every message up to that one
 * is known: when memory runs after every turn, a compaction usually removes nothing memory has not seen,
 * and no update is queued at all.
 *
 * The job stands alone and starts at once (DeerFlow's `add_nowait`): the queue normally keeps one waiting
 * conversation per thread, and the end-of-run conversation queued a moment later (which no longer
 * contains these messages) would otherwise replace it.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { filterConversationForMemory } from "../../memory/conversation-filter.js";
import type { MemoryQueue } from "../../memory/memory-queue.js";
import type { Logger } from "../../logger.js";
import type { BeforeSummarizationHook, SummarizationEvent } from "./summarization-hooks.js";

/** Options of {@link memoryFlushHook}. */
export interface MemoryFlushOptions {
  logger?: Logger;
  /** The id of the thread's last message memory has learned from (`MemoryService.learnedThrough`); absent: none known. */
  learnedThrough?: (threadId: string) => string | undefined;
}

/**
 * The compacted messages memory has not learned from: those after the thread's learned message. When
 * that message is no longer in the thread (an earlier compaction removed it), which of these memory saw
 * is unknown, and all are sent.
 */
function unlearned(event: SummarizationEvent, learnedId: string | undefined): readonly BaseMessage[] {
  if (!learnedId) return event.messages;
  const through = event.thread.findIndex((message) => message.id === learnedId);
  if (through < 0) return event.messages;
  const learned = new Set(event.thread.slice(0, through + 1));
  return event.messages.filter((message) => !learned.has(message));
}

/**
 * A hook that queues the compacted messages of a thread that memory has not learned from for fact
 * extraction, and starts the update in the background. Nothing is queued without a thread id, or when
 * those messages hold no user message and final answer (the same rule as the end-of-run memory middleware).
 *
 * @example
 * summarizationMiddleware({ ...options, beforeSummarization: [memoryFlushHook(memory.queue, { learnedThrough: memory.learnedThrough })] });
 */
export function memoryFlushHook(
  queue: Pick<MemoryQueue, "enqueue">,
  options: MemoryFlushOptions = {},
): BeforeSummarizationHook {
  return function flushToMemory(event) {
    if (!event.threadId) return;
    const unseen = unlearned(event, options.learnedThrough?.(event.threadId));
    if (unseen.length === 0) {
      options.logger?.debug(`memory has learned from every compacted message of thread ${event.threadId}`);
      return;
    }
    const turns = filterConversationForMemory(unseen);
    if (!turns.some((turn) => turn.role === "user") || !turns.some((turn) => turn.role === "assistant")) return;
    // Runs in the background: the update's model call must not hold up the run. The queue reports failures.
    queue.enqueue(event.threadId, turns, { standalone: true });
    options.logger?.debug(`queued ${turns.length} turns of thread ${event.threadId} for memory before compaction`);
  };
}
