/**
 * The merge rule of every ThreadState channel, as named pure functions.
 *
 * langchain JS re-emits a middleware's declared fields on every hook update, so each rule here must be
 * idempotent: `merge(x, x)` equals `x`. Counters and other accumulating values never live in a shared
 * channel. Each function's doc comment states what `undefined`, `null`, `[]` and `{}` mean.
 */

import {
  type AcceptanceGap,
  type DelegationEntry,
  type DelegationStatus,
  type GoalState,
  type SandboxState,
  type SkillEntry,
  type TaskNote,
  TerminalDelegationStatus,
  type TodoItem,
  type ToolReceipt,
  type ViewedImage,
} from "./shapes.js";

export const TERMINAL_DELEGATION_STATUSES: ReadonlySet<DelegationStatus> = new Set(TerminalDelegationStatus.options);
export const DELEGATION_LEDGER_MAX_ENTRIES = 50;
export const SKILL_CONTEXT_MAX_ENTRIES = 8;
export const SKILL_DESCRIPTION_MAX_CHARS = 500;
export const TASK_NOTES_MAX_ENTRIES = 20;

/**
 * `sandbox`: `undefined`/`null` next keeps the current value; an empty current takes the next; the same
 * id keeps the current. Two different ids mean two sandboxes claimed one thread: fail closed by throwing.
 */
export function mergeSandbox(
  current: SandboxState | null | undefined,
  next: SandboxState | null | undefined,
): SandboxState | null {
  if (next == null) return current ?? null;
  if (current == null || current.sandbox_id == null) return next;
  if (next.sandbox_id == null || next.sandbox_id === current.sandbox_id) return current;
  throw new Error(
    `Conflicting sandbox state updates: the thread holds sandbox "${current.sandbox_id}" and an update claims "${next.sandbox_id}".`,
  );
}

/** `artifacts`: ordered union without duplicates. `undefined`/`null` next keeps the current list. */
export function mergeArtifacts(
  current: readonly string[] | null | undefined,
  next: readonly string[] | null | undefined,
): string[] {
  if (next == null) return [...(current ?? [])];
  return [...new Set([...(current ?? []), ...next])];
}

/** `todos`: `undefined`/`null` next keeps the current list; anything else replaces it (`[]` clears). */
export function mergeTodos(
  current: TodoItem[] | null | undefined,
  next: TodoItem[] | null | undefined,
): TodoItem[] | null {
  if (next == null) return current ?? null;
  return next;
}

/**
 * `viewed_images`: `undefined`/`null` next keeps the current map; `{}` clears all; otherwise the next
 * entries are merged over the current ones by path.
 */
export function mergeViewedImages(
  current: Record<string, ViewedImage> | null | undefined,
  next: Record<string, ViewedImage> | null | undefined,
): Record<string, ViewedImage> {
  if (next == null) return { ...(current ?? {}) };
  if (Object.keys(next).length === 0) return {};
  return { ...(current ?? {}), ...next };
}

/**
 * `delegations`: entries keyed by task id, in first-seen order. A later entry for a known id replaces it
 * (keeping the earlier `created_at`, and the earlier `run_id` when the later one has none), except that
 * a terminal status is never downgraded to a non-terminal one. `undefined`/`null`/`[]` next keeps the
 * current ledger. Past 50 entries the oldest are dropped.
 */
export function mergeDelegations(
  current: readonly DelegationEntry[] | null | undefined,
  next: readonly DelegationEntry[] | null | undefined,
): DelegationEntry[] {
  if (next == null || next.length === 0) return [...(current ?? [])];
  const byId = new Map<string, DelegationEntry>();
  for (const entry of [...(current ?? []), ...next]) {
    const previous = byId.get(entry.id);
    if (previous === undefined) {
      byId.set(entry.id, entry);
      continue;
    }
    if (TERMINAL_DELEGATION_STATUSES.has(previous.status) && !TERMINAL_DELEGATION_STATUSES.has(entry.status)) continue;
    byId.set(entry.id, {
      ...entry,
      created_at: previous.created_at,
      ...(entry.run_id === undefined && previous.run_id !== undefined ? { run_id: previous.run_id } : {}),
    });
  }
  const merged = [...byId.values()];
  return merged.slice(Math.max(0, merged.length - DELEGATION_LEDGER_MAX_ENTRIES));
}

/** Collapses whitespace and caps a skill description at 500 characters. */
export function normalizeSkillDescription(description: unknown): string {
  const text = typeof description === "string" ? description.split(/\s+/).filter(Boolean).join(" ") : "";
  return text.length > SKILL_DESCRIPTION_MAX_CHARS ? text.slice(0, SKILL_DESCRIPTION_MAX_CHARS) : text;
}

function normalizeSkillEntry(entry: SkillEntry): SkillEntry {
  return {
    name: String(entry.name ?? ""),
    path: String(entry.path ?? ""),
    description: normalizeSkillDescription(entry.description),
    loaded_at: Number.isInteger(entry.loaded_at) ? entry.loaded_at : 0,
  };
}

/**
 * `skill_context`: entries keyed by path. Re-reading a skill moves it to the end with the newer entry.
 * Descriptions are whitespace-collapsed and capped at 500 characters; unknown keys (such as a stored
 * body) are dropped. `undefined`/`null`/`[]` next keeps the (normalized) current list. Past 8 entries
 * the least recently read are dropped.
 */
export function mergeSkillContext(
  current: readonly SkillEntry[] | null | undefined,
  next: readonly SkillEntry[] | null | undefined,
): SkillEntry[] {
  const byPath = new Map<string, SkillEntry>();
  for (const entry of current ?? []) byPath.set(entry.path, normalizeSkillEntry(entry));
  for (const entry of next ?? []) {
    byPath.delete(entry.path);
    byPath.set(entry.path, normalizeSkillEntry(entry));
  }
  const merged = [...byPath.values()];
  return merged.slice(Math.max(0, merged.length - SKILL_CONTEXT_MAX_ENTRIES));
}

/**
 * `goal`: `undefined` keeps the current goal; `null` clears it (`/goal clear`); a goal replaces the
 * current one. Only the user sets it (a state update or the run input), never a hook, so a hook that
 * re-emits the goal it read re-emits the current value.
 */
export function mergeGoal(current: GoalState | null | undefined, next: GoalState | null | undefined): GoalState | null {
  if (next === undefined) return current ?? null;
  return next;
}

/**
 * `task_notes`: notes keyed by id, in the order written; a known id keeps its first version (a note is
 * never edited). `undefined`/`null`/`[]` next keeps the current list. Past 20 notes the oldest are dropped.
 */
export function mergeTaskNotes(
  current: readonly TaskNote[] | null | undefined,
  next: readonly TaskNote[] | null | undefined,
): TaskNote[] {
  const byId = new Map<string, TaskNote>();
  for (const note of [...(current ?? []), ...(next ?? [])]) if (!byId.has(note.id)) byId.set(note.id, note);
  const merged = [...byId.values()];
  return merged.slice(Math.max(0, merged.length - TASK_NOTES_MAX_ENTRIES));
}

/** Last-value channels (`thread_data`, `title`, `uploaded_files`, `summary_text`): `undefined` keeps. */
export function lastValue<T>(current: T, next: T | undefined): T {
  return next === undefined ? current : next;
}

/** Receipts the channel keeps: the newest, since every change rewrites the whole list in the checkpoint. */
export const TOOL_RECEIPTS_MAX_ENTRIES = 20;
export const ACCEPTANCE_GAPS_MAX_ENTRIES = 30;

/**
 * `tool_receipts`: receipts keyed by id, in the order issued; a known id keeps its first version (a
 * receipt is never edited). `undefined`/`null`/`[]` next keeps the current list. Past
 * {@link TOOL_RECEIPTS_MAX_ENTRIES} receipts the oldest are dropped.
 */
export function mergeToolReceipts(
  current: readonly ToolReceipt[] | null | undefined,
  next: readonly ToolReceipt[] | null | undefined,
): ToolReceipt[] {
  const byId = new Map<string, ToolReceipt>();
  for (const receipt of [...(current ?? []), ...(next ?? [])]) if (!byId.has(receipt.id)) byId.set(receipt.id, receipt);
  const merged = [...byId.values()];
  return merged.slice(Math.max(0, merged.length - TOOL_RECEIPTS_MAX_ENTRIES));
}

/** The key two criteria share when they say the same thing: lower case, whitespace collapsed. */
export function criterionKey(criterion: string): string {
  return criterion.toLowerCase().split(/\s+/).filter(Boolean).join(" ");
}

/**
 * `acceptance_gaps`: open criteria keyed by {@link criterionKey}. A `met` entry removes the gap with the
 * same key; an `unmet`/`unverified` one adds it or replaces it (moving it to the end). `null` clears the
 * list (the user's "clear"); `undefined`/`[]` keeps it. Past 30 gaps the oldest are dropped.
 */
export function mergeAcceptanceGaps(
  current: readonly AcceptanceGap[] | null | undefined,
  next: readonly AcceptanceGap[] | null | undefined,
): AcceptanceGap[] {
  if (next === null) return [];
  const byKey = new Map<string, AcceptanceGap>();
  for (const gap of current ?? []) if (gap.status !== "met") byKey.set(criterionKey(gap.criterion), gap);
  for (const gap of next ?? []) {
    const key = criterionKey(gap.criterion);
    const stored = byKey.get(key);
    if (gap.status === "met") byKey.delete(key);
    else if (!stored || stored.task_id !== gap.task_id || stored.status !== gap.status || stored.note !== gap.note) {
      byKey.delete(key);
      byKey.set(key, gap);
    }
  }
  const merged = [...byKey.values()];
  return merged.slice(Math.max(0, merged.length - ACCEPTANCE_GAPS_MAX_ENTRIES));
}
