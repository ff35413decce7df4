/**
 * The built-in `before_summarization` hook: what compaction takes out of a thread is handed to memory
 * first, so a fact the user stated early in a long thread is learned even though the end-of-run
 * conversation no longer holds it.
 *
 * The job stands alone and starts at once (DeerFlow's `add_nowait`): the queue normally keeps one waiting
 * conversation per thread, and the end-of-run conversation queued a moment later (which no longer
 * contains these messages) would otherwise replace it.
 */
import { filterConversationForMemory } from "../../memory/conversation-filter.js";
import type { MemoryQueue } from "../../memory/memory-queue.js";
import type { Logger } from "../../logger.js";
import type { BeforeSummarizationHook } from "./summarization-hooks.js";

/**
 * A hook that queues the compacted messages of a thread for fact extraction and starts the update in
 * the background. Nothing is queued without a thread id, or when the messages hold no user message and
 * final answer (the same rule as the end-of-run memory middleware).
 *
 * @example
 * summarizationMiddleware({ ...options, beforeSummarization: [memoryFlushHook(memory.queue)] });
 */
export function memoryFlushHook(
  queue: Pick<MemoryQueue, "enqueue">,
  options: { logger?: Logger } = {},
): BeforeSummarizationHook {
  return function flushToMemory(event) {
    if (!event.threadId) return;
    const turns = filterConversationForMemory(event.messages);
    if (!turns.some((turn) => turn.role === "user") || !turns.some((turn) => turn.role === "assistant")) return;
    // Runs in the background: the update's model call must not hold up the run. The queue reports failures.
    queue.enqueue(event.threadId, turns, { standalone: true });
    options.logger?.debug(`queued ${turns.length} turns of thread ${event.threadId} for memory before compaction`);
  };
}
