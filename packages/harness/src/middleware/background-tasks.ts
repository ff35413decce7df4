/**
 * Ends a run's background subagents with the run.
 *
 * A subagent started with `task(..., run_in_background: true)` belongs to the run that started it: once
 * the lead has given its final answer nobody can collect the result, and a subagent still working would
 * spend tokens and touch files for no one. After the agent (`afterAgent`) this cancels the thread's
 * running background tasks, waits for them to settle (their `task_cancelled` events still reach the
 * stream) and drops every record. Before the agent it does the same for what a run that ended without
 * its `afterAgent` (a crash, a process that lost the run) may have left.
 */
import { createMiddleware } from "langchain";
import type { Logger } from "../logger.js";
import { type BackgroundTasks, backgroundThreadKey } from "../subagents/background.js";

/** Options of {@link backgroundTasksMiddleware}. */
export interface BackgroundTasksMiddlewareOptions {
  /** The store the `task` and `background_tasks` tools use. */
  tasks: BackgroundTasks;
  /** Receives a message when a run ends with background work left. Default: `console.warn`. */
  onWarning?: (message: string) => void;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/**
 * Cancels and forgets a thread's background subagents when its run ends. Put it in the chain only when
 * subagents are enabled.
 *
 * @example
 * const tasks = new BackgroundTasks();
 * createAgent({ model, tools, middleware: [backgroundTasksMiddleware({ tasks })] });
 */
export function backgroundTasksMiddleware(options: BackgroundTasksMiddlewareOptions) {
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  const end = async (threadId: unknown, when: string) => {
    const report = await options.tasks.endRun(backgroundThreadKey(threadId));
    if (report.cancelled === 0 && report.uncollected === 0) return;
    const message = `background-tasks: ${when}: cancelled ${report.cancelled} running background task(s), dropped ${report.uncollected} uncollected result(s).`;
    options.logger?.info(message);
    warn(message);
  };
  return createMiddleware({
    name: "background-tasks",
    beforeAgent: async (_state, runtime) => {
      await end(runtime.configurable?.thread_id, "left by an earlier run");
      return undefined;
    },
    afterAgent: async (_state, runtime) => {
      await end(runtime.configurable?.thread_id, "the run ended");
      return undefined;
    },
  });
}
