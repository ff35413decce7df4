/**
 * `background_tasks(action, task_id?, wait_seconds?)`: the lead's handle on the subagents it started
 * with `task(..., run_in_background: true)`.
 *
 * `list` shows every task of the run with its status and progress without waiting. `collect` waits for
 * one task (by default until it ends, which the task's own timeout bounds), answers with the same text
 * and status-contract keys a foreground `task` result has, and forgets the task. `cancel` stops one.
 * Waiting in `collect` rather than polling `list` matters: a lead that sends the same poll response
 * after response would be stopped by loop detection.
 */
import { ToolMessage } from "@langchain/core/messages";
import { type ToolRuntime, tool } from "@langchain/core/tools";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  type BackgroundTaskView,
  type BackgroundTasks,
  type CollectedTask,
  backgroundThreadKey,
} from "../subagents/background.js";
import { formatTaskResultText, taskResultMetadata } from "../subagents/status-contract.js";

/** Name of the background-task tool. */
export const BACKGROUND_TASKS_TOOL_NAME = "background_tasks";
/** Longest wait one `collect` may ask for. */
export const MAX_COLLECT_WAIT_SECONDS = 3600;

/** Options of {@link createBackgroundTasksTool}. */
export interface BackgroundTasksToolOptions {
  /** The store the `task` tool starts background subagents in. */
  tasks: BackgroundTasks;
}

const BackgroundTasksArgs = z.object({
  action: z
    .enum(["list", "collect", "cancel"])
    .describe(
      "list: every background task of this run and its progress, without waiting. collect: wait for one task's result (then it is gone from the list). cancel: stop one task.",
    ),
  task_id: z
    .string()
    .optional()
    .describe("The task_id the task call returned. Needed for collect and cancel when more than one task exists."),
  wait_seconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_COLLECT_WAIT_SECONDS)
    .optional()
    .describe(
      "collect only: the longest to wait, in seconds. Omit to wait until the task ends; 0 checks without waiting.",
    ),
});

function describeView(view: BackgroundTaskView): string {
  const steps = `${view.steps} step${view.steps === 1 ? "" : "s"}`;
  return `${view.task_id} [${view.status}] ${view.description} (${view.subagent_type}), ${steps}, ${view.elapsed_seconds} s`;
}

function reply(toolCallId: string, content: string, extra: Record<string, unknown> = {}, failed = false): ToolMessage {
  return new ToolMessage({
    name: BACKGROUND_TASKS_TOOL_NAME,
    tool_call_id: toolCallId,
    content,
    status: failed ? "error" : "success",
    additional_kwargs: extra,
  });
}

/** The ToolMessage of a collected or cancelled task: the `task` result text and status-contract keys. */
export function collectedTaskMessage(collected: CollectedTask, toolCallId: string): ToolMessage {
  const { view, result } = collected;
  return reply(
    toolCallId,
    `Background task ${view.task_id} (${view.description}): ${formatTaskResultText(result)}`,
    { background_task_id: view.task_id, ...taskResultMetadata(result, collected.modelName) },
    result.status !== "completed",
  );
}

/**
 * Creates the `background_tasks` tool over the store the `task` tool uses.
 *
 * @example
 * const tasks = new BackgroundTasks();
 * const tools = [createTaskTool({ ...options, background: { tasks, maxRunning: 3 } }), createBackgroundTasksTool({ tasks })];
 */
export function createBackgroundTasksTool(options: BackgroundTasksToolOptions) {
  const { tasks } = options;
  return tool(
    async ({ action, task_id, wait_seconds }, runtime: ToolRuntime) => {
      const toolCallId = runtime.toolCallId ?? runtime.toolCall?.id ?? randomUUID();
      const thread = backgroundThreadKey(runtime.configurable?.thread_id ?? runtime.config?.configurable?.thread_id);
      const views = tasks.list(thread);
      if (action === "list") {
        if (views.length === 0) return reply(toolCallId, "No background tasks in this run.", { background_tasks: [] });
        return reply(toolCallId, `Background tasks:\n${views.map((view) => `- ${describeView(view)}`).join("\n")}`, {
          background_tasks: views,
        });
      }
      const id = task_id ?? (views.length === 1 ? views[0]!.task_id : undefined);
      if (id === undefined || !views.some((view) => view.task_id === id)) {
        const known =
          views.length > 0
            ? `Background tasks of this run: ${views.map((view) => view.task_id).join(", ")}.`
            : "This run has no background tasks.";
        const what =
          id === undefined
            ? `${action} needs a task_id.`
            : `There is no background task "${id}" (it may have been collected already).`;
        return reply(toolCallId, `Error: ${what} ${known}`, {}, true);
      }
      if (action === "cancel") {
        const cancelled = await tasks.cancel(thread, id);
        return collectedTaskMessage(cancelled!, toolCallId);
      }
      const signal = runtime.signal ?? runtime.config?.signal;
      const waitMs = wait_seconds === undefined ? undefined : wait_seconds * 1000;
      const collected = await tasks.collect(thread, id, { waitMs, signal });
      if (collected?.result === undefined) {
        const view = collected?.view ?? views.find((candidate) => candidate.task_id === id)!;
        return reply(
          toolCallId,
          `Background task ${describeView(view)} is still running. Keep working, or collect it again (omit wait_seconds to wait until it ends).`,
          { background_task_id: id, subagent_background_status: "running" },
        );
      }
      return collectedTaskMessage(collected as CollectedTask, toolCallId);
    },
    {
      name: BACKGROUND_TASKS_TOOL_NAME,
      description:
        "Check on, collect or cancel the subagents you started with task(..., run_in_background: true). Collect every background task before your final answer: unfinished ones are cancelled and uncollected results are lost when your run ends. To wait for a result, call collect (it waits); do not poll list again and again. Collect in a later response than the task call that started the task.",
      schema: BackgroundTasksArgs,
    },
  );
}
