/**
 * The built-in `before_summarization` hook: what compaction takes out of a thread is handed to memory
 * first, so a fact the user stated early in a long thread is learned even though the end-of-run
 * conversation no longer holds it.
 *
 * The job is started at once instead of waiting out the debounce: the queue keeps one waiting
 * conversation per thread, and the end-of-run conversation queued a moment later (which no longer
 * contains these messages) would replace it. DeerFlow's `add_nowait` is the same immediate update.
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
  queue: Pick<MemoryQueue, "enqueue" | "flush">,
  options: { logger?: Logger } = {},
): BeforeSummarizationHook {
  return function flushToMemory(event) {
    if (!event.threadId) return;
    const turns = filterConversationForMemory(event.messages);
    if (!turns.some((turn) => turn.role === "user") || !turns.some((turn) => turn.role === "assistant")) return;
    queue.enqueue(event.threadId, turns);
    options.logger?.debug(`queued ${turns.length} turns of thread ${event.threadId} for memory before compaction`);
    // Not awaited: the update's model call must not hold up the run. Failures are reported by the queue.
    void queue.flush().catch(() => {});
  };
}
