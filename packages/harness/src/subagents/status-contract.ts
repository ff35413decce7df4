/**
 * The two faces of a finished delegation: the text the lead model reads, and the structured
 * `additional_kwargs` that programs read (subagent_status_contract.json, version 2).
 *
 * The delegation ledger, the CLI and any UI must read the structured keys, never parse the text: the
 * text is for the model and may change wording. The result itself is kept whole in the text; the
 * metadata carries a bounded brief plus a SHA-256 of the full result so a ledger can refer to it.
 */
import { createHash } from "node:crypto";
import type { SubagentResult, SubagentStatus, SubagentStopReason, SubagentTokenUsage } from "./types.js";
import { type Verification, formatVerification } from "./verification.js";

/** Longest `subagent_result_brief` / `subagent_error`, in characters. */
export const SUBAGENT_TEXT_MAX_CHARS = 2000;

/** The structured part of a `task` ToolMessage (`additional_kwargs`). */
export interface TaskResultMetadata {
  subagent_status: SubagentStatus;
  /** Completed runs with a non-blank result only: the result, trimmed and cut to 2000 characters keeping head and tail. */
  subagent_result_brief?: string;
  /** With the brief only: 64 lowercase hex digits, SHA-256 of the full result (UTF-8). */
  subagent_result_sha256?: string;
  /** Every other status, when the error is not blank: what went wrong, cut like the brief. */
  subagent_error?: string;
  subagent_stop_reason?: SubagentStopReason;
  subagent_token_usage?: SubagentTokenUsage;
  /** The subagent's model, when its kind names one. */
  subagent_model_name?: string;
  /** DeerFlow.ts's own key: the runtime's check of the report (receipt count, citations, flags, criteria). */
  subagent_verification?: Verification;
  /** DeerFlow.ts's own key: the task never started; the subagent queue `rejected` it or it `timed_out` there. */
  subagent_queue_outcome?: "rejected" | "timed_out";
}

const STOP_REASON_LABELS: Record<SubagentStopReason, string> = {
  turn_capped: "turn budget",
  token_capped: "token budget",
  loop_capped: "repeated tool-call loop",
};

/**
 * Cuts `text` to at most `maxChars`, keeping its head and tail around an "omitted" marker. A cap too
 * small to hold the marker keeps just the head, so the result never exceeds `maxChars`.
 */
export function boundText(text: string, maxChars: number = SUBAGENT_TEXT_MAX_CHARS): string {
  if (text.length <= maxChars) return text;
  const markerFor = (omitted: number) => `\n[... ${omitted} characters omitted ...]\n`;
  if (maxChars <= markerFor(text.length).length) return text.slice(0, Math.max(0, maxChars));
  const room = maxChars - markerFor(text.length).length;
  const head = Math.ceil(room / 2);
  const tail = room - head;
  return text.slice(0, head) + markerFor(text.length - room) + (tail > 0 ? text.slice(-tail) : "");
}

/** SHA-256 of `text` as 64 lowercase hex digits. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * The model-facing text of a finished delegation, e.g. `Task Succeeded. Result: …`,
 * `Task failed (capped: turn budget). Error: …`, `Task Succeeded (capped: token budget). Result: …`, `Task timed out.`, `Task cancelled by user.`.
 */
export function formatTaskResultText(result: SubagentResult): string {
  const text = statusText(result);
  const verification = result.verification ? formatVerification(result.verification) : "";
  return verification ? `${text}\n\n${verification}` : text;
}

function statusText(result: SubagentResult): string {
  const capped = result.stopReason ? ` (capped: ${STOP_REASON_LABELS[result.stopReason]})` : "";
  const error = result.error ? ` Error: ${result.error}` : "";
  switch (result.status) {
    case "completed":
      return `Task Succeeded${capped}. Result: ${result.result ?? ""}`;
    case "failed":
      return `Task failed${capped}.${error}`;
    case "timed_out":
      return `Task timed out.${error}`;
    case "cancelled":
      return `Task cancelled by user.${error}`;
  }
}

/** The `additional_kwargs` of a finished delegation's ToolMessage. */
export function taskResultMetadata(result: SubagentResult, modelName?: string): TaskResultMetadata {
  const metadata: TaskResultMetadata = { subagent_status: result.status };
  // Blank text is left out rather than sent as "" (a brief of nothing, the hash of nothing, an empty error).
  if (result.status === "completed") {
    const full = result.result ?? "";
    if (full.trim()) {
      metadata.subagent_result_brief = boundText(full.trim());
      metadata.subagent_result_sha256 = sha256Hex(full);
    }
  } else if (result.error?.trim()) {
    metadata.subagent_error = boundText(result.error.trim());
  }
  if (result.stopReason) metadata.subagent_stop_reason = result.stopReason;
  if (result.tokenUsage) metadata.subagent_token_usage = { ...result.tokenUsage };
  if (modelName) metadata.subagent_model_name = modelName;
  if (result.verification) metadata.subagent_verification = result.verification;
  if (result.queueOutcome) metadata.subagent_queue_outcome = result.queueOutcome;
  return metadata;
}
