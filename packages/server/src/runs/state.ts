/**
 * The LangGraph API's ThreadState, built from a LangGraph StateSnapshot: values, next, the checkpoint
 * and its parent as objects (clients branch and regenerate from them), tasks with their interrupts.
 */
import type { StateSnapshot } from "@langchain/langgraph";
import { toWire } from "./serialize.js";

/** `{thread_id, checkpoint_ns, checkpoint_id, checkpoint_map}` of a snapshot config, or null. */
export function checkpointOf(config: { configurable?: Record<string, unknown> } | undefined, threadId: string) {
  const configurable = config?.configurable;
  if (!configurable?.checkpoint_id) return null;
  return {
    thread_id: (configurable.thread_id as string) ?? threadId,
    checkpoint_ns: (configurable.checkpoint_ns as string) ?? "",
    checkpoint_id: configurable.checkpoint_id as string,
    checkpoint_map: (configurable.checkpoint_map as Record<string, unknown>) ?? null,
  };
}

/** Interrupts of a snapshot's tasks, by task id. */
export function interruptsOf(snapshot: StateSnapshot): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const task of snapshot.tasks ?? []) {
    if (task.interrupts?.length) out[task.id] = toWire(task.interrupts) as unknown[];
  }
  return out;
}

/** The ThreadState JSON of a snapshot. */
export function threadState(snapshot: StateSnapshot, threadId: string): Record<string, unknown> {
  const checkpoint = checkpointOf(snapshot.config as never, threadId);
  return {
    values: toWire(snapshot.values ?? {}),
    next: [...(snapshot.next ?? [])],
    checkpoint,
    metadata: toWire(snapshot.metadata ?? {}),
    created_at: snapshot.createdAt ?? null,
    parent_checkpoint: checkpointOf(snapshot.parentConfig as never, threadId),
    tasks: (snapshot.tasks ?? []).map((task) => ({
      id: task.id,
      name: task.name,
      error: task.error ? String((task.error as Error).message ?? task.error) : null,
      interrupts: toWire(task.interrupts ?? []),
      checkpoint: null,
      state: null,
      ...(task.result !== undefined ? { result: toWire(task.result) } : {}),
    })),
  };
}

/** The state of a thread with no checkpoint yet. */
export function emptyThreadState(): Record<string, unknown> {
  return { values: {}, next: [], checkpoint: null, metadata: {}, created_at: null, parent_checkpoint: null, tasks: [] };
}
