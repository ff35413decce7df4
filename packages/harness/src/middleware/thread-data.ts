/**
 * Chain slot 1. Gives each thread its own directories, `{home}/threads/{thread_id}/user-data/
 * {workspace,uploads,outputs}`, before anything else runs, and records their host paths in the
 * `thread_data` channel (never shown to the model) so tools and later middlewares (uploads, view-image,
 * subagents) agree on where the thread's files are. It also stamps the run's user message with a
 * timestamp (and run id, when known), DeerFlow's marker of where the current run began.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { HarnessError } from "../errors.js";
import { ensureThreadDirs } from "../sandbox/virtual-paths.js";
import { threadStateSubset } from "../state/thread-state.js";

/** Options of {@link threadDataMiddleware}. */
export interface ThreadDataOptions {
  /** DeerFlow home; thread directories are created under `{home}/threads/`. */
  home: string;
}

/**
 * A copy of the last human message stamped with `name: "user-input"` (unless it has a name) and
 * `additional_kwargs.timestamp` / `run_id`; null when there is no human message or it is already stamped.
 */
export function stampUserMessage(messages: readonly BaseMessage[], now: Date, runId?: string): HumanMessage | null {
  const last = [...messages].reverse().find((message) => HumanMessage.isInstance(message));
  if (!last || last.additional_kwargs?.timestamp !== undefined) return null;
  return new HumanMessage({
    id: last.id,
    content: last.content,
    name: last.name ?? "user-input",
    additional_kwargs: { ...last.additional_kwargs, timestamp: now.toISOString(), ...(runId ? { run_id: runId } : {}) },
    response_metadata: last.response_metadata,
  });
}

/**
 * Creates the thread's directories and writes `thread_data`. Throws when the run has no
 * `configurable.thread_id` or an unsafe one (a setup error, not a tool failure).
 *
 * @example
 * ```ts
 * createAgent({ model, tools, middleware: [threadDataMiddleware({ home: "/srv/.deer-flow" })] });
 * ```
 */
export function threadDataMiddleware(options: ThreadDataOptions) {
  return createMiddleware({
    name: "thread-data",
    stateSchema: threadStateSubset("thread_data"),
    beforeAgent: (state, runtime) => {
      // A subagent runs under its own thread id but works in its parent's directories.
      const threadId = runtime.configurable?.parent_thread_id ?? runtime.configurable?.thread_id;
      if (typeof threadId !== "string" || threadId === "") {
        throw new HarnessError(
          "thread_invalid",
          "This agent needs a thread: pass configurable.thread_id when invoking it.",
        );
      }
      const thread_data = ensureThreadDirs(options.home, threadId);
      const runId = runtime.configurable?.run_id;
      const stamped = stampUserMessage(state.messages, new Date(), typeof runId === "string" ? runId : undefined);
      return stamped ? { thread_data, messages: [stamped] } : { thread_data };
    },
  });
}
