/**
 * Runs one delegated job in an isolated context and always comes back with a status.
 *
 * Isolation: the subagent starts from fresh state (its own system prompt and the job as its only user
 * message, its own thread id) and sees only the parent's `sandbox` and `thread_data`, so it shares the
 * files but none of the conversation. The run is also detached from the parent's ambient LangGraph
 * config: invoked inside a tool, a graph otherwise inherits the parent's checkpointer, namespace and
 * callbacks, and would write its checkpoints into the parent's thread.
 *
 * Bounds: a turn cap (the graph's recursion limit), a wall-clock timeout and the parent's abort signal.
 * Whatever happens (a throw, a loop, a hang, a cancel) the caller gets a `SubagentResult`; the lead
 * never sees an exception from here.
 */
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { randomUUID } from "node:crypto";
import type { SandboxState, ThreadDataState } from "../state/shapes.js";
import { type TaskEventSink, fanOut } from "./events.js";
import { StepTracker } from "./step-tracker.js";
import type { CreateSubagent, SubagentInput, SubagentResult, SubagentType } from "./types.js";
import { reportInstructions, verifyReport } from "./verification.js";

/** Options of {@link runSubagent}. */
export interface RunSubagentOptions {
  /** Correlates events and results with the lead's tool call (its `tool_call_id`). */
  taskId: string;
  description: string;
  prompt: string;
  type: SubagentType;
  /** The subagent's tools, already filtered for its kind. */
  tools: StructuredToolInterface[];
  createSubagent: CreateSubagent;
  /** The parent's `sandbox` and `thread_data`, handed over so the subagent works on the same files. */
  parentState?: { sandbox?: SandboxState | null; thread_data?: ThreadDataState | null };
  parentThreadId?: string;
  /** The parent run's abort signal: when it fires, the subagent is cancelled. */
  signal?: AbortSignal;
  timeoutSeconds: number;
  emit?: TaskEventSink;
  /** What the report must show (`task(acceptance_criteria)`); listed in the subagent's prompt and checked after. */
  acceptanceCriteria?: readonly string[];
}

type StopCause = "cancelled" | "timed_out";

/** setTimeout fires at once beyond this (2^31 - 1 ms, about 24.8 days), so longer timeouts are capped. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function isRecursionError(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === "GraphRecursionError";
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** Drives the subagent graph to its end, outside the parent's ambient LangGraph config. */
function drive(options: RunSubagentOptions, tracker: StepTracker, signal: AbortSignal): Promise<void> {
  const { type, parentState } = options;
  const input: SubagentInput = {
    messages: [
      new SystemMessage(`${type.systemPrompt}\n\n${reportInstructions(options.acceptanceCriteria ?? [])}`),
      new HumanMessage(options.prompt),
    ],
    ...(parentState?.sandbox ? { sandbox: parentState.sandbox } : {}),
    ...(parentState?.thread_data ? { thread_data: parentState.thread_data } : {}),
  };
  const run = async () => {
    const graph = await options.createSubagent({
      type: type.name,
      systemPrompt: type.systemPrompt,
      tools: options.tools,
      model: type.model,
      maxTurns: type.maxTurns,
      ...(type.maxTokens !== undefined ? { maxTokens: type.maxTokens } : {}),
    });
    const stream = await graph.stream(input, {
      configurable: {
        thread_id: `subagent-${randomUUID()}`,
        ...(options.parentThreadId ? { parent_thread_id: options.parentThreadId } : {}),
      },
      recursionLimit: type.maxTurns,
      signal,
      streamMode: "values",
    });
    for await (const chunk of stream) {
      if (signal.aborted) return;
      tracker.observe(chunk);
    }
  };
  return AsyncLocalStorageProviderSingleton.getInstance().run(undefined, run);
}

function settle(
  options: RunSubagentOptions,
  tracker: StepTracker,
  outcome: { stop?: StopCause; error?: unknown },
): SubagentResult {
  const usage = tracker.tokenUsage ? { tokenUsage: tracker.tokenUsage } : {};
  if (outcome.stop === "cancelled") return { status: "cancelled", ...usage };
  if (outcome.stop === "timed_out") {
    return {
      status: "timed_out",
      error: `The subagent did not finish within ${options.timeoutSeconds} seconds.`,
      ...usage,
    };
  }
  // A guard that stopped the run (token budget, loop detection) was the binding cap, even when the turn
  // limit then trips before the final answer lands.
  const guard = tracker.guardStopReason;
  if (outcome.error !== undefined && isRecursionError(outcome.error)) {
    const stopReason = guard ?? "turn_capped";
    const partial = tracker.partialAnswer;
    if (partial !== "") return { status: "completed", result: partial, stopReason, ...usage };
    return {
      status: "failed",
      error: `The subagent used its whole turn budget (${options.type.maxTurns} steps) without writing an answer.`,
      stopReason,
      ...usage,
    };
  }
  if (outcome.error !== undefined) return { status: "failed", error: errorText(outcome.error), ...usage };
  return { status: "completed", result: tracker.finalAnswer(), ...(guard ? { stopReason: guard } : {}), ...usage };
}

/**
 * The result with the subagent's receipts and the check of its report against them. A run with nothing
 * to check (no receipt, no citation, no flag, no criterion) is returned as it is.
 */
function verified(options: RunSubagentOptions, tracker: StepTracker, result: SubagentResult): SubagentResult {
  const receipts = tracker.receipts;
  const report = result.status === "completed" ? result.result : undefined;
  const verification = verifyReport(report, receipts, options.acceptanceCriteria ?? []);
  const { citations, flags, criteria } = verification;
  if (receipts.length + citations.length + flags.length + criteria.length === 0) return result;
  return { ...result, ...(receipts.length > 0 ? { receipts } : {}), verification };
}

function emitTerminal(emit: TaskEventSink, task_id: string, result: SubagentResult): void {
  if (result.verification) {
    const { receipts, citations, flags, criteria } = result.verification;
    emit({ type: "task_verified", task_id, receipts, citations, flags, criteria });
  }
  if (result.status === "completed") {
    emit({
      type: "task_completed",
      task_id,
      result: result.result ?? "",
      ...(result.tokenUsage ? { usage: result.tokenUsage } : {}),
    });
  } else if (result.status === "failed") emit({ type: "task_failed", task_id, error: result.error ?? "" });
  else if (result.status === "timed_out") emit({ type: "task_timed_out", task_id, error: result.error ?? "" });
  else emit({ type: "task_cancelled", task_id, ...(result.error ? { error: result.error } : {}) });
}

/**
 * Runs one subagent to a terminal status, emitting `task_started`, `task_running` per step and one
 * terminal event. Never throws.
 *
 * @example
 * const result = await runSubagent({
 *   taskId: "call_1", description: "Count lines", prompt: "Count the lines of …",
 *   type: registry.get("general-purpose")!, tools, createSubagent, timeoutSeconds: 900,
 *   signal: runtime.signal, emit: (event) => runtime.writer?.(event),
 * });
 */
export async function runSubagent(options: RunSubagentOptions): Promise<SubagentResult> {
  const emit = fanOut(options.emit);
  const task_id = options.taskId;
  const tracker = new StepTracker((message_index, message) =>
    emit({ type: "task_running", task_id, message_index, message }),
  );
  if (options.signal?.aborted) {
    const result = verified(options, tracker, settle(options, tracker, { stop: "cancelled" }));
    emitTerminal(emit, task_id, result);
    return result;
  }
  emit({ type: "task_started", task_id, description: options.description, subagent_type: options.type.name });

  const controller = new AbortController();
  let stop: StopCause | undefined;
  let onStop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (onStop = resolve));
  const halt = (cause: StopCause) => {
    if (stop !== undefined) return;
    stop = cause;
    controller.abort(new Error(cause === "timed_out" ? "Subagent timed out" : "Subagent cancelled"));
    onStop();
  };
  const onParentAbort = () => halt("cancelled");
  options.signal?.addEventListener("abort", onParentAbort, { once: true });
  const timeoutMs = Math.min(Math.max(0, options.timeoutSeconds * 1000), MAX_TIMER_MS);
  const timer = setTimeout(() => halt("timed_out"), timeoutMs);

  let error: unknown;
  try {
    const running = drive(options, tracker, controller.signal);
    running.catch(() => {}); // after a stop the run may still reject; it is no longer awaited
    await Promise.race([running, stopped]);
  } catch (caught) {
    error = caught;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onParentAbort);
  }
  const result = verified(options, tracker, settle(options, tracker, { stop, error }));
  emitTerminal(emit, task_id, result);
  return result;
}
