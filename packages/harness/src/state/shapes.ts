/**
 * The shapes a thread persists in its checkpoints (and clients read back over the wire), each declared
 * once as a zod schema with its type under the same name. The state schema (`thread-state.ts`), the
 * reducers, the tools that write these channels and the status checks all start from here, so a new
 * delegation status or todo field is added in one place and the checkpoint validation follows.
 */
import { z } from "zod";

/** Lifecycle record of the thread's sandbox. */
export const SandboxState = z.object({ sandbox_id: z.string().nullable().optional() });
export type SandboxState = z.infer<typeof SandboxState>;

/** Input, output and total tokens: a run's or thread's usage (token-usage), a subagent's (task events). */
export const TokenCounts = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
});

/** Host directories of a thread. Never shown to the model: tools map them to virtual paths. */
export const ThreadDataState = z.object({
  workspace_path: z.string(),
  uploads_path: z.string(),
  outputs_path: z.string(),
});
export type ThreadDataState = z.infer<typeof ThreadDataState>;

/** Where a todo stands: not started, being worked on (one at a time), done. */
export const TodoStatus = z.enum(["pending", "in_progress", "completed"]);
export type TodoStatus = z.infer<typeof TodoStatus>;

/** One planned step of the todo list (plan mode). */
export const TodoItem = z.object({ content: z.string(), status: TodoStatus });
export type TodoItem = z.infer<typeof TodoItem>;

/** A file uploaded into the thread, as listed in the uploads block. */
export const UploadedFile = z.object({
  filename: z.string(),
  size: z.number(),
  path: z.string(),
  virtual_path: z.string(),
});
export type UploadedFile = z.infer<typeof UploadedFile>;

/** What `view_image` recorded about an image: metadata only, never the bytes. */
export const ViewedImage = z.object({ mime_type: z.string(), size: z.number(), actual_path: z.string() });
export type ViewedImage = z.infer<typeof ViewedImage>;

/** Terminal and non-terminal statuses of a delegated task. */
export const DelegationStatus = z.enum([
  "in_progress",
  "completed",
  "failed",
  "cancelled",
  "timed_out",
  "polling_timed_out",
]);
export type DelegationStatus = z.infer<typeof DelegationStatus>;

/** The statuses a delegation ends with: every status but `in_progress`. */
export const TerminalDelegationStatus = DelegationStatus.exclude(["in_progress"]);
export type TerminalDelegationStatus = z.infer<typeof TerminalDelegationStatus>;

/** Why a guardrail cap ended a subagent run early. */
export const DelegationStopReason = z.enum(["token_capped", "turn_capped", "loop_capped"]);
export type DelegationStopReason = z.infer<typeof DelegationStopReason>;

/** One entry of the delegation ledger: a `task` call and what came of it. */
export const DelegationEntry = z.object({
  id: z.string(),
  run_id: z.string().optional(),
  description: z.string(),
  subagent_type: z.string(),
  status: DelegationStatus,
  result_brief: z.string().optional(),
  result_sha256: z.string().optional(),
  result_ref: z.string().optional(),
  stop_reason: DelegationStopReason.optional(),
  created_at: z.string(),
});
export type DelegationEntry = z.infer<typeof DelegationEntry>;

/** A skill whose SKILL.md the agent has read: a pointer and its description, never the body. */
export const SkillEntry = z.object({
  name: z.string(),
  path: z.string(),
  description: z.string(),
  loaded_at: z.number(),
});
export type SkillEntry = z.infer<typeof SkillEntry>;

/** The thread's goal: what the user wants the whole conversation to achieve, set with `/goal`. */
export const GoalState = z.object({
  objective: z.string(),
  /** ISO time the user set it. */
  set_at: z.string(),
});
export type GoalState = z.infer<typeof GoalState>;

/** A note the agent wrote about its task with `task_note` (progress, a decision): kept past compaction. */
export const TaskNote = z.object({
  id: z.string(),
  text: z.string(),
  created_at: z.string(),
});
export type TaskNote = z.infer<typeof TaskNote>;

/**
 * A tool call's receipt, stamped by the runtime (the tool-receipts middleware), never by the model: which
 * tool ran, hashes of its arguments and result, whether it failed, and how big its result was. A
 * subagent's report cites receipts by `id` (`[r3]`) so the lead can check the work it claims.
 */
export const ToolReceipt = z.object({
  /** Short id, `r1`, `r2`, … in the order the calls finished within the thread (or subagent run). */
  id: z.string(),
  tool: z.string(),
  tool_call_id: z.string(),
  /** First 16 hex chars of the SHA-256 of the arguments as canonical JSON (keys sorted). */
  args_sha256: z.string(),
  /** First 16 hex chars of the SHA-256 of the result text. */
  result_sha256: z.string(),
  status: z.enum(["ok", "error"]),
  /** UTF-8 bytes of the result text. */
  result_bytes: z.number(),
});
export type ToolReceipt = z.infer<typeof ToolReceipt>;

/** Where a delegated acceptance criterion stands after the lead checked the subagent's report. */
export const CriterionStatus = z.enum(["met", "unmet", "unverified"]);
export type CriterionStatus = z.infer<typeof CriterionStatus>;

/**
 * An acceptance criterion a delegated task left unmet or unverified. Kept in state (durable context),
 * so it outlives compaction, until a later task meets the same criterion or the user clears the list.
 */
export const AcceptanceGap = z.object({
  /** The criterion as written in `task(acceptance_criteria)`. */
  criterion: z.string(),
  /** `met` only travels in updates, where it removes the gap; stored gaps are `unmet` or `unverified`. */
  status: CriterionStatus,
  /** The `task` call (its tool call id) whose report left it open. */
  task_id: z.string(),
  /** The report's own words about it, cut to 300 chars. */
  note: z.string().optional(),
  created_at: z.string(),
});
export type AcceptanceGap = z.infer<typeof AcceptanceGap>;
