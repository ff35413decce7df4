/**
 * `batch_task` progress from the run's `custom` events (`batch_progress {tool_call_id, total, done,
 * failed}`; see the harness's tools/batch-task.ts), kept per tool call so the call's card shows a
 * progress bar. Pure, so it is tested without a browser.
 */

/** What a batch's progress bar shows. */
export interface BatchProgress {
  toolCallId: string;
  description: string;
  total: number;
  done: number;
  failed: number;
}

/** Folds one custom event into the progress by tool call id (other events leave it as it is). */
export function applyBatchEvent(current: Record<string, BatchProgress>, data: unknown): Record<string, BatchProgress> {
  const event = data as Partial<{
    type: string;
    tool_call_id: string;
    description: string;
    total: number;
    done: number;
    failed: number;
  }> | null;
  if (event?.type !== "batch_progress" || typeof event.tool_call_id !== "string") return current;
  const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0);
  const next: BatchProgress = {
    toolCallId: event.tool_call_id,
    description: typeof event.description === "string" ? event.description : "",
    total: count(event.total),
    done: count(event.done),
    failed: count(event.failed),
  };
  const before = current[next.toolCallId];
  // Events can arrive out of order after a reconnect's replay: progress never goes back.
  if (before && before.done + before.failed > next.done + next.failed) return current;
  return { ...current, [next.toolCallId]: next };
}

/** The share of items settled (done or failed), 0 to 100. */
export function settledPercent(progress: BatchProgress): number {
  if (progress.total <= 0) return 0;
  return Math.min(100, Math.round(((progress.done + progress.failed) / progress.total) * 100));
}
