/**
 * The delegation ledger's capture: which `task` calls the agent made and how each ended, read from the
 * calls' arguments and the structured metadata on their ToolMessages (subagent status contract v2,
 * fixtures/deerflow/subagent_status_contract.json), never from the result text.
 *
 * Without a ledger, compaction removes a finished subagent's messages and the lead delegates the same
 * work again (deer-flow#3857: 9 near-duplicate subagents, ~9.9 M tokens). The ledger lives in state, so
 * it survives compaction and is re-projected into every request.
 */
import { createHash } from "node:crypto";
import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { DELEGATION_LEDGER_MAX_ENTRIES, TERMINAL_DELEGATION_STATUSES } from "../../state/reducers.js";
import {
  type DelegationEntry,
  type DelegationStatus,
  DelegationStopReason,
  TerminalDelegationStatus,
} from "../../state/shapes.js";
import { boundText } from "../../messages/text.js";
import { isAIMessage, matchToolResults } from "../../messages/tool-pairs.js";

/** Name of the tool whose calls are delegations. */
export const TASK_TOOL_NAME = "task";
/** The tool that collects or cancels background delegations; its result names the task in `background_task_id`. */
const BACKGROUND_TASKS_TOOL_NAME = "background_tasks";
const MAX_DESCRIPTION_CHARS = 200;
/** Cap of a stored result brief (head and tail kept). */
export const MAX_RESULT_BRIEF_CHARS = 2000;

/**
 * What a result that carries only a status says. A completed task without a brief says nothing: its
 * entry gets no brief rather than a made-up one (the text is never parsed).
 */
const CANNED_RESULT: Record<DelegationStatus, string> = {
  in_progress: "",
  completed: "",
  failed: "Task failed.",
  cancelled: "Task cancelled by user.",
  timed_out: "Task timed out.",
  polling_timed_out: "Task polling timed out.",
};

/** The contract fields of a `task` ToolMessage, validated; anything malformed is left out. */
export interface SubagentResultMetadata {
  status?: TerminalDelegationStatus;
  stopReason?: DelegationStopReason;
  brief?: string;
  sha256?: string;
  error?: string;
}

/**
 * Reads `subagent_status`, `subagent_stop_reason`, `subagent_result_brief`, `subagent_result_sha256` and
 * `subagent_error` from a ToolMessage's `additional_kwargs`. The legacy status `max_turns_reached` reads
 * as `turn_capped`: completed when a brief exists, failed otherwise.
 */
export function readSubagentMetadata(kwargs: Record<string, unknown> | undefined): SubagentResultMetadata {
  const k = kwargs ?? {};
  const text = (value: unknown) => (typeof value === "string" && value.trim() ? value : undefined);
  const brief = text(k.subagent_result_brief);
  const meta: SubagentResultMetadata = { brief, error: text(k.subagent_error) };
  const status = TerminalDelegationStatus.safeParse(k.subagent_status);
  const stopReason = DelegationStopReason.safeParse(k.subagent_stop_reason);
  if (status.success) meta.status = status.data;
  else if (k.subagent_status === "max_turns_reached")
    Object.assign(meta, { status: brief ? "completed" : "failed", stopReason: "turn_capped" });
  if (stopReason.success) meta.stopReason = stopReason.data;
  if (typeof k.subagent_result_sha256 === "string" && /^[0-9a-f]{64}$/.test(k.subagent_result_sha256))
    meta.sha256 = k.subagent_result_sha256;
  return meta;
}

function applyResult(entry: DelegationEntry, result: ToolMessage): DelegationEntry {
  const meta = readSubagentMetadata(result.additional_kwargs);
  const status = meta.status ?? (result.status === "error" ? "failed" : undefined);
  if (status === undefined) return entry; // no contract metadata: the outcome is unknown, never guessed from text
  const resultText = meta.brief ?? meta.error ?? CANNED_RESULT[status];
  const ended: DelegationEntry = { ...entry, status, ...(meta.stopReason ? { stop_reason: meta.stopReason } : {}) };
  if (!resultText) return ended;
  return {
    ...ended,
    result_brief: boundText(resultText, MAX_RESULT_BRIEF_CHARS),
    result_sha256: meta.sha256 ?? createHash("sha256").update(resultText).digest("hex"),
    result_ref: result.id ?? result.tool_call_id,
  };
}

/**
 * The messages the run `runId` may have added: those after the first human message stamped with its id
 * (`additional_kwargs.run_id`, see thread-data), so a task of an older run that is missing from the
 * ledger is not captured as this run's. A resumed run adds no message of its own; then only the latest
 * turn (after the last human message) can hold its calls, and older turns are left alone. Without a run
 * id, every message.
 *
 * @example
 * currentRunMessages([oldHuman, oldTask, newHuman (run_id "r2"), newTask], "r2"); // → [newTask]
 */
export function currentRunMessages(messages: readonly BaseMessage[], runId?: string): readonly BaseMessage[] {
  if (runId === undefined) return messages;
  const isHuman = (message: BaseMessage) => message.type === "human";
  const first = messages.findIndex((message) => isHuman(message) && message.additional_kwargs?.run_id === runId);
  const boundary = first >= 0 ? first : messages.findLastIndex(isHuman);
  return boundary >= 0 ? messages.slice(boundary + 1) : messages;
}

/**
 * Ledger entries for every `task` call in `messages`, in first-seen order: `in_progress` until its
 * ToolMessage carries a contract status. `now` stamps `created_at`; `runId` is stored on each entry.
 */
export function extractDelegations(
  messages: readonly BaseMessage[],
  options: { now?: string; runId?: string } = {},
): DelegationEntry[] {
  const now = options.now ?? new Date().toISOString();
  const byId = new Map<string, DelegationEntry>();
  const taskIds = (message: BaseMessage) =>
    isAIMessage(message) ? (message.tool_calls ?? []).filter((c) => c.name === TASK_TOOL_NAME && c.id) : [];
  const matches = matchToolResults(messages, (message) => taskIds(message).map((call) => call.id!));
  for (const [index, results] of matches) {
    taskIds(messages[index]!).forEach((call, position) => {
      const args = (call.args ?? {}) as Record<string, unknown>;
      const description = String(args.description || args.prompt || "").slice(0, MAX_DESCRIPTION_CHARS);
      const subagentType =
        typeof args.subagent_type === "string" && args.subagent_type ? args.subagent_type : "general-purpose";
      let entry: DelegationEntry = {
        id: call.id!,
        description,
        subagent_type: subagentType,
        status: "in_progress",
        created_at: now,
      };
      if (options.runId) entry.run_id = options.runId;
      const resultIndex = results[position];
      if (resultIndex !== undefined) entry = applyResult(entry, messages[resultIndex] as ToolMessage);
      byId.delete(entry.id);
      byId.set(entry.id, entry);
    });
  }
  // A background task's `task` result only says it started; its outcome comes with its collection.
  for (const message of messages) {
    if (message.type !== "tool" || (message as ToolMessage).name !== BACKGROUND_TASKS_TOOL_NAME) continue;
    const id = message.additional_kwargs?.background_task_id;
    const entry = typeof id === "string" ? byId.get(id) : undefined;
    if (entry?.status === "in_progress") byId.set(entry.id, applyResult(entry, message as ToolMessage));
  }
  return [...byId.values()];
}

const STABLE_FIELDS = [
  "description",
  "subagent_type",
  "status",
  "run_id",
  "result_brief",
  "result_sha256",
  "result_ref",
  "stop_reason",
] as const;

/**
 * The extracted entries the ledger does not already hold as they are: new ids, or known ids whose stable
 * fields changed (known ids keep their stored `run_id`). A terminal entry is never moved back to a
 * non-terminal status. Once the ledger is full, ids older than its earliest retained entry are ignored,
 * so long-evicted delegations do not come back as the newest.
 */
export function changedDelegations(
  current: readonly DelegationEntry[],
  extracted: readonly DelegationEntry[],
): DelegationEntry[] {
  const known = new Map(current.map((entry) => [entry.id, entry]));
  const firstRetained =
    current.length >= DELEGATION_LEDGER_MAX_ENTRIES ? extracted.findIndex((entry) => known.has(entry.id)) : -1;
  return extracted.flatMap((entry, position) => {
    const stored = known.get(entry.id);
    if (stored === undefined) return position < firstRetained ? [] : [entry];
    const candidate = { ...entry, run_id: stored.run_id, created_at: stored.created_at };
    if (candidate.run_id === undefined) delete candidate.run_id;
    if (TERMINAL_DELEGATION_STATUSES.has(stored.status) && !TERMINAL_DELEGATION_STATUSES.has(candidate.status))
      return [];
    return STABLE_FIELDS.every((field) => stored[field] === candidate[field]) ? [] : [candidate];
  });
}
