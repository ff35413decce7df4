/**
 * `task(description, prompt, subagent_type)`: the lead's way to delegate a job to a subagent.
 *
 * The tool resolves the kind, gives the subagent the parent's tools minus the ones no subagent may
 * have, runs it through the executor (isolated context, shared files, turn cap, timeout, cancellation
 * with the parent run) and answers with one ToolMessage: text for the model plus the structured status
 * of subagent_status_contract.json in `additional_kwargs`. Several `task` calls in one response run in
 * parallel because the agent's tool node runs each call of a message as its own task.
 *
 * With a background store, `run_in_background: true` starts the subagent without waiting: the tool
 * answers at once with the task id, and the lead collects the result later with `background_tasks`.
 */
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { type StructuredToolInterface, type ToolRuntime, tool } from "@langchain/core/tools";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { SandboxState, ThreadDataState } from "../state/shapes.js";
import { type TaskEvent, type TaskEventSink, fanOut } from "../subagents/events.js";
import { type RunSubagentOptions, runSubagent } from "../subagents/executor.js";
import type { SubagentQueue } from "../subagents/queue.js";
import { MAX_ACCEPTANCE_CRITERIA, MAX_CRITERION_CHARS } from "../subagents/verification.js";
import { type BackgroundTasks, backgroundThreadKey } from "../subagents/background.js";
import type { SubagentRegistry } from "../subagents/registry.js";
import { formatTaskResultText, taskResultMetadata } from "../subagents/status-contract.js";
import type { CreateSubagent, SubagentResult, SubagentType } from "../subagents/types.js";
import { SUBAGENTS_DEFAULTS } from "../config/defaults.js";
import { BACKGROUND_TASKS_TOOL_NAME } from "./background-tasks.js";

/** Name of the delegation tool. */
export const TASK_TOOL_NAME = "task";
/** Timeout of a subagent whose kind sets none (config `subagents.timeout_seconds` default). */
export const DEFAULT_TASK_TIMEOUT_SECONDS = SUBAGENTS_DEFAULTS.timeout_seconds;

/** Options of {@link createTaskTool}. */
export interface TaskToolOptions {
  registry: SubagentRegistry;
  /** Builds a subagent graph for a kind (model, middleware chain); must not attach a checkpointer. */
  createSubagent: CreateSubagent;
  /** The lead's tools (or a function returning them, read at each call); `task` itself is filtered out. */
  parentTools: readonly StructuredToolInterface[] | (() => readonly StructuredToolInterface[]);
  /** Extra receiver of task events, besides the run's custom stream (e.g. a CLI printer or a recorder). */
  emit?: TaskEventSink;
  /** Timeout for kinds that set none. Default 1800 s. */
  defaultTimeoutSeconds?: number;
  /**
   * Offers `run_in_background`: background subagents go to `tasks` (shared with the `background_tasks`
   * tool), at most `maxRunning` at once per thread. Absent: every task is waited for.
   */
  background?: { tasks: BackgroundTasks; maxRunning: number };
  /** The process's subagent queue (`subagents.queue`); absent: subagents start at once. */
  queue?: SubagentQueue;
}

const TaskArgs = z.object({
  description: z.string().describe("A short label for the job (3 to 5 words), shown to the user while it runs."),
  prompt: z
    .string()
    .describe(
      "The complete brief for the subagent, which knows nothing of this conversation: the goal, the relevant context and file paths, constraints, and what its final report must contain.",
    ),
  subagent_type: z
    .string()
    .describe("Which kind of subagent runs the job; one of the types listed in the tool description."),
  acceptance_criteria: z
    .array(z.string().trim().min(1).max(MAX_CRITERION_CHARS))
    .max(MAX_ACCEPTANCE_CRITERIA)
    .optional()
    .describe(
      `Optional checks the result must pass, one short sentence each (at most ${MAX_ACCEPTANCE_CRITERIA}), e.g. "npm test passes". The subagent answers each as met or unmet, citing the receipts of its tool calls; criteria left unmet or unverified stay on your list of open criteria until a later task meets them.`,
    ),
});

const BackgroundTaskArgs = TaskArgs.extend({
  run_in_background: z
    .boolean()
    .optional()
    .describe(
      "true: start the subagent and return at once with its task_id, so you keep working; collect its result later with background_tasks. Default false: wait for the result.",
    ),
});

/**
 * The tools a subagent of `type` gets: `parentTools` minus its disallowed tools (always `task`,
 * `ask_clarification`, `present_files`), restricted to its allow-list when it has one.
 */
export function selectSubagentTools(
  parentTools: readonly StructuredToolInterface[],
  type: Pick<SubagentType, "tools" | "disallowedTools">,
): StructuredToolInterface[] {
  const denied = new Set(type.disallowedTools);
  const allowed = type.tools == null ? undefined : new Set(type.tools);
  return parentTools.filter(
    (candidate) => !denied.has(candidate.name) && (allowed === undefined || allowed.has(candidate.name)),
  );
}

/**
 * Runs `run` once the queue grants a slot (at once without a queue). A task the queue turns away or
 * times out never starts: it ends `failed` (rejected) or `timed_out` with a result that says so, and
 * the terminal task event is emitted here since the executor never ran.
 */
async function runQueued(queue: SubagentQueue | undefined, run: RunSubagentOptions): Promise<SubagentResult> {
  if (queue === undefined) return runSubagent(run);
  const emit = fanOut(run.emit);
  const slot = await queue.acquire({
    signal: run.signal,
    onQueued: (position) => emit({ type: "task_queued", task_id: run.taskId, position }),
  });
  if (slot.ok) {
    try {
      return await runSubagent(run);
    } finally {
      slot.release();
    }
  }
  if (slot.reason === "cancelled") {
    emit({ type: "task_cancelled", task_id: run.taskId, error: slot.message });
    return { status: "cancelled", error: slot.message };
  }
  const status = slot.reason === "rejected" ? "failed" : "timed_out";
  emit({ type: status === "failed" ? "task_failed" : "task_timed_out", task_id: run.taskId, error: slot.message });
  return { status, error: slot.message, queueOutcome: slot.reason };
}

/** The ToolMessage a finished delegation answers with. */
export function taskToolMessage(result: SubagentResult, toolCallId: string, modelName?: string): ToolMessage {
  return new ToolMessage({
    name: TASK_TOOL_NAME,
    tool_call_id: toolCallId,
    content: formatTaskResultText(result),
    status: result.status === "completed" ? "success" : "error",
    additional_kwargs: { ...taskResultMetadata(result, modelName) },
  });
}

/**
 * Cancelled results for the `task` calls of the last AI message that have no result yet. After a run
 * is aborted mid-delegation its pending tool calls have no ToolMessage; writing these into the thread
 * (`graph.updateState(config, { messages })`) records the delegations as cancelled and leaves a
 * well-formed history to resume from.
 */
export function cancelledTaskResults(messages: readonly BaseMessage[]): ToolMessage[] {
  const lastAi = messages.findLastIndex((message) => AIMessage.isInstance(message));
  if (lastAi < 0) return [];
  const answered = new Set(
    messages
      .slice(lastAi + 1)
      .filter((m) => ToolMessage.isInstance(m))
      .map((m) => (m as ToolMessage).tool_call_id),
  );
  return ((messages[lastAi] as AIMessage).tool_calls ?? [])
    .filter((call) => call.name === TASK_TOOL_NAME && typeof call.id === "string" && !answered.has(call.id))
    .map((call) => taskToolMessage({ status: "cancelled" }, call.id as string));
}

/** The answer of a task started in the background. */
function startedMessage(toolCallId: string): ToolMessage {
  return new ToolMessage({
    name: TASK_TOOL_NAME,
    tool_call_id: toolCallId,
    content:
      `Task started in the background (task_id: ${toolCallId}). Keep working; call background_tasks with action "collect" and this task_id to wait for its result. ` +
      "Unfinished background tasks are cancelled when your run ends.",
    status: "success",
    additional_kwargs: { subagent_background: true },
  });
}

function describeTool(registry: SubagentRegistry, background: boolean): string {
  const types = registry
    .list()
    .map((type) => `- ${type.name}: ${type.description.trim().split("\n")[0]}`)
    .join("\n");
  return `Delegate one self-contained job to a subagent that works in its own context, in the same sandbox (same files), and returns a final report. It waits for the subagent and returns its result. Several task calls in one response run in parallel.${
    background
      ? " With run_in_background: true it returns at once instead, and you collect the result later with background_tasks."
      : ""
  }

Subagent types:
${types}`;
}

/**
 * Creates the `task` tool.
 *
 * @example
 * const task = createTaskTool({
 *   registry: createSubagentRegistry({ bashAllowed: true }),
 *   createSubagent: (spec) => createAgent({ model, tools: spec.tools, middleware: subagentChain, checkpointer: false }),
 *   parentTools: () => leadTools,
 * });
 */
export function createTaskTool(options: TaskToolOptions) {
  const timeoutDefault = options.defaultTimeoutSeconds ?? DEFAULT_TASK_TIMEOUT_SECONDS;
  return tool(
    async (
      {
        description,
        prompt,
        subagent_type,
        acceptance_criteria,
        run_in_background,
      }: z.infer<typeof BackgroundTaskArgs>,
      runtime: ToolRuntime,
    ) => {
      const toolCallId = runtime.toolCallId ?? runtime.toolCall?.id ?? randomUUID();
      const type = options.registry.get(subagent_type);
      if (type === undefined) {
        return taskToolMessage(
          { status: "failed", error: options.registry.unknownTypeMessage(subagent_type) },
          toolCallId,
        );
      }
      const parentTools = typeof options.parentTools === "function" ? options.parentTools() : options.parentTools;
      const state = (runtime.state ?? {}) as { sandbox?: SandboxState | null; thread_data?: ThreadDataState | null };
      const writer = runtime.writer ?? (runtime.config as { writer?: (chunk: unknown) => void } | undefined)?.writer;
      const threadId = runtime.configurable?.thread_id ?? runtime.config?.configurable?.thread_id;
      const signal = runtime.signal ?? runtime.config?.signal;
      const run: RunSubagentOptions = {
        taskId: toolCallId,
        description,
        prompt,
        type,
        // A subagent neither delegates nor reaches the lead's background tasks.
        tools: selectSubagentTools(
          parentTools.filter((candidate) => candidate.name !== BACKGROUND_TASKS_TOOL_NAME),
          type,
        ),
        createSubagent: options.createSubagent,
        parentState: { sandbox: state.sandbox, thread_data: state.thread_data },
        parentThreadId: typeof threadId === "string" ? threadId : undefined,
        timeoutSeconds: type.timeoutSeconds ?? timeoutDefault,
        emit: fanOut(writer as ((event: TaskEvent) => void) | undefined, options.emit),
        ...(acceptance_criteria?.length ? { acceptanceCriteria: acceptance_criteria } : {}),
      };
      const background = options.background;
      if (run_in_background && background) {
        const started = background.tasks.start(backgroundThreadKey(threadId), {
          taskId: toolCallId,
          description,
          subagentType: type.name,
          modelName: type.model,
          maxRunning: background.maxRunning,
          signal,
          run: (taskSignal, onStep) =>
            runQueued(options.queue, {
              ...run,
              signal: taskSignal,
              emit: fanOut(run.emit, (event) => event.type === "task_running" && onStep()),
            }),
        });
        if (!started.ok) return taskToolMessage({ status: "failed", error: started.error }, toolCallId);
        return startedMessage(toolCallId);
      }
      const result = await runQueued(options.queue, { ...run, signal });
      return taskToolMessage(result, toolCallId, type.model);
    },
    {
      name: TASK_TOOL_NAME,
      description: describeTool(options.registry, options.background !== undefined),
      schema: options.background ? BackgroundTaskArgs : TaskArgs,
    },
  );
}
