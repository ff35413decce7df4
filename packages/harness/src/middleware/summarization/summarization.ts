/**
 * Chain slot 6: keeps a long thread inside the model's window by replacing its older messages with a
 * summary held in `summary_text`.
 *
 * The summary is never written as a message (it was once mistaken for user input, deer-flow PR #3887):
 * durable context projects it into each request. The cut never splits a tool call from its results; the
 * current request and flagged reminders stay; the removed messages go to the full-history archive
 * and the `before_summarization` hooks first; and when no summary can be produced (errors, timeouts,
 * blank text) the state is left as it was and the run goes on. The work itself is
 * `summarization-compactor.ts`, shared with manual compaction.
 */
import { createMiddleware } from "langchain";
import { threadStateSubset } from "../../state/thread-state.js";
import { type Compactor, type CompactorOptions, createCompactor } from "./summarization-compactor.js";

export { latestUserMessageIndex } from "./summarization-compactor.js";

/** Options of {@link summarizationMiddleware}. */
export type SummarizationOptions = CompactorOptions;

/**
 * Builds the summarization middleware. Its `compact` runs the same compaction on demand (manual
 * `/compact`), with the same models, archive and hooks.
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
 *   beforeSummarization: [({ messages }) => console.log(`${messages.length} messages compacted`)],
 * });
 */
export function summarizationMiddleware(options: SummarizationOptions) {
  const warn = options.onWarning ?? ((message: string) => console.warn(`[summarization] ${message}`));
  const triggers = Array.isArray(options.trigger) ? options.trigger : [options.trigger];
  if (options.maxInputTokens === undefined) {
    if (triggers.some((t) => t.type === "fraction"))
      warn(
        "a `fraction` trigger needs the model's max_input_tokens; it is ignored. Set max_input_tokens on the model entry.",
      );
    if (options.keep.type === "fraction")
      warn("a `fraction` keep needs the model's max_input_tokens; keeping the last 20 messages instead.");
  }
  const compact: Compactor = createCompactor({ ...options, onWarning: warn });

  const middleware = createMiddleware({
    name: "summarization",
    // The ledger, skills, notes and goal are read only to count what durable context adds to every request.
    stateSchema: threadStateSubset("summary_text", "delegations", "skill_context", "task_notes", "goal"),
    beforeModel: async (state, runtime) => {
      const threadId = runtime.configurable?.thread_id;
      const outcome = await compact(state, { threadId: threadId ? String(threadId) : undefined });
      return outcome.compacted ? outcome.update : undefined;
    },
  });
  return Object.assign(middleware, { compact });
}
