/**
 * Chain slot 9: hands each finished run's conversation to the memory queue, so what the user tells the
 * agent in one thread is known in the next. It runs in `afterAgent` (once per run, after the answer) and
 * only enqueues: the model call that extracts facts happens later, in the background, debounced per
 * thread. Only user messages and final answers are queued (see `filterConversationForMemory`), with
 * the signals the user's recent words show (they corrected or confirmed the agent: `detectMemorySignals`).
 */
import { createMiddleware } from "langchain";
import { filterConversationForMemory } from "../memory/conversation-filter.js";
import type { MemoryQueue } from "../memory/memory-queue.js";
import { detectMemorySignals } from "../memory/memory-signals.js";
import type { Logger } from "../logger.js";

/** Options of `memoryMiddleware`. */
export interface MemoryMiddlewareOptions {
  /** Where conversations go (from `createMemoryQueue` or `createMemoryService`). */
  queue: Pick<MemoryQueue, "enqueue">;
  /** Recorded on each job, for a queue shared by several agents. */
  agentName?: string;
  /** Recorded on each job, for a queue shared by several users (absent: the local user). */
  userId?: string;
  /** Logs each queued conversation at debug level. */
  logger?: Logger;
}

/**
 * Creates the memory middleware. A run without a thread id, or without both a user message and a final
 * answer, queues nothing.
 *
 * @example
 * const memory = createMemoryService({ home, model, settings: {} });
 * createAgent({ model, middleware: [memoryMiddleware({ queue: memory.queue })] });
 */
export function memoryMiddleware(options: MemoryMiddlewareOptions) {
  return createMiddleware({
    name: "memory",
    afterAgent: (state, runtime) => {
      const threadId = runtime.configurable?.thread_id;
      if (typeof threadId !== "string" || threadId === "") return;
      const turns = filterConversationForMemory(state.messages);
      if (!turns.some((turn) => turn.role === "user") || !turns.some((turn) => turn.role === "assistant")) return;
      const signals = detectMemorySignals(turns);
      // The id tells a later compaction which messages memory has already seen (memory-flush-hook.ts).
      const throughMessageId = state.messages.findLast((message) => message.id)?.id;
      options.queue.enqueue(threadId, turns, {
        agentName: options.agentName,
        userId: options.userId,
        signals,
        ...(throughMessageId ? { throughMessageId } : {}),
      });
      options.logger?.debug(
        `queued thread ${threadId} (${turns.length} turns${signals.length ? `, ${signals.join(" and ")}` : ""}) for fact extraction`,
      );
    },
  });
}
