/**
 * `before_summarization` hooks: code that must see a thread's older messages before compaction takes
 * them out of state (memory extraction is the built-in one). Hooks run once the summary exists and the
 * messages are archived, right before they are removed, as in DeerFlow: a summarizer (or archive) that
 * fails leaves the messages in place for the next attempt, and firing then would hand the same messages
 * over twice.
 * A hook that throws or rejects is logged and skipped; it never stops the compaction or the run.
 */
import type { BaseMessage } from "@langchain/core/messages";

/** What a {@link BeforeSummarizationHook} is told. */
export interface SummarizationEvent {
  /** The messages about to be summarized and removed, oldest first. */
  messages: readonly BaseMessage[];
  /** The messages that stay in the thread (kept tail, current request, reminders). */
  preserved: readonly BaseMessage[];
  /** Every message of the thread before this compaction, in order: `messages` and `preserved` interleaved. */
  thread: readonly BaseMessage[];
  /** The thread being compacted; undefined for a run without one. */
  threadId?: string;
  /** The custom agent of the run, when it is one. */
  agentName?: string;
  /** True for a compaction asked for by the user (`/compact`), false for one a trigger fired. */
  manual: boolean;
}

/** Called before compaction removes messages; may be async (it is awaited). */
export type BeforeSummarizationHook = (event: SummarizationEvent) => void | Promise<void>;

/**
 * Runs `hooks` in order on `event`. Each failure goes to `onError` with the hook's name; the rest still run.
 *
 * @example
 * await runBeforeSummarizationHooks([flushToMemory], event, (name, error) => logger.warn(`${name} failed: ${error}`));
 */
export async function runBeforeSummarizationHooks(
  hooks: readonly BeforeSummarizationHook[],
  event: SummarizationEvent,
  onError: (hookName: string, error: unknown) => void,
): Promise<void> {
  for (const hook of hooks) {
    try {
      await hook(event);
    } catch (error) {
      onError(hook.name || "anonymous hook", error);
    }
  }
}
