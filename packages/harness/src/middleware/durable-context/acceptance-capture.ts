/**
 * Open acceptance criteria: what delegated tasks left unmet or unverified, read from the runtime's
 * check on their results (`additional_kwargs.subagent_verification`, see subagents/verification.ts),
 * never from the text.
 *
 * Without this a criterion the subagent did not meet is mentioned once in a tool result, and the first
 * compaction forgets it: the lead then reports the work done (deer-flow PR #5287 tells "execution
 * complete" apart from "acceptance met" for the same reason). The gaps live in state until a later task
 * meets the same criterion or the user clears them (`acceptance_gaps: null`).
 */
import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { criterionKey, mergeAcceptanceGaps } from "../../state/reducers.js";
import type { AcceptanceGap } from "../../state/shapes.js";
import { Verification } from "../../subagents/verification.js";

const TASK_TOOL_NAME = "task";
const BACKGROUND_TASKS_TOOL_NAME = "background_tasks";
const NOTE_MAX_CHARS = 300;

/** The task id a result belongs to: its tool call, or the collected background task. */
function taskIdOf(message: ToolMessage): string {
  const background = message.additional_kwargs?.background_task_id;
  return typeof background === "string" ? background : message.tool_call_id;
}

/**
 * The gap updates of `messages`, in order: one entry per criterion of each verified `task` (or collected
 * background task) result; `met` entries remove a gap.
 */
export function extractAcceptanceUpdates(
  messages: readonly BaseMessage[],
  now = new Date().toISOString(),
): AcceptanceGap[] {
  const updates: AcceptanceGap[] = [];
  for (const message of messages) {
    if (message.type !== "tool") continue;
    const tool = message as ToolMessage;
    if (tool.name !== TASK_TOOL_NAME && tool.name !== BACKGROUND_TASKS_TOOL_NAME) continue;
    const parsed = Verification.safeParse(tool.additional_kwargs?.subagent_verification);
    if (!parsed.success) continue;
    for (const check of parsed.data.criteria) {
      updates.push({
        criterion: check.criterion,
        status: check.status,
        task_id: taskIdOf(tool),
        ...(check.note ? { note: check.note.slice(0, NOTE_MAX_CHARS) } : {}),
        created_at: now,
      });
    }
  }
  return updates;
}

/**
 * The updates that change `current`: applying `updates` in order, the gaps added, replaced (`unmet` ↔
 * `unverified`, another task) or removed (`met`). Stored gaps keep their `created_at`. Empty when the
 * state already reflects them, so capture on every call writes nothing new.
 */
export function changedAcceptanceGaps(
  current: readonly AcceptanceGap[],
  updates: readonly AcceptanceGap[],
): AcceptanceGap[] {
  const stamped = updates.map((update) => {
    const stored = current.find((gap) => criterionKey(gap.criterion) === criterionKey(update.criterion));
    return stored && stored.task_id === update.task_id ? { ...update, created_at: stored.created_at } : update;
  });
  const after = mergeAcceptanceGaps(current, stamped);
  const same = (a: AcceptanceGap, b: AcceptanceGap) =>
    a.criterion === b.criterion && a.status === b.status && a.task_id === b.task_id && a.note === b.note;
  if (after.length === current.length && after.every((gap, i) => same(gap, current[i]!))) return [];
  // Replay only what is needed: the final status of every criterion the updates touched.
  const last = new Map<string, AcceptanceGap>();
  for (const update of stamped) last.set(criterionKey(update.criterion), update);
  return [...last.values()].filter((update) => {
    const stored = current.find((gap) => criterionKey(gap.criterion) === criterionKey(update.criterion));
    if (update.status === "met") return stored !== undefined;
    return stored === undefined || !same(stored, update);
  });
}
