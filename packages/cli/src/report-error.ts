/**
 * Prints a failure as one or a few plain lines and picks the exit code: 2 for configuration problems
 * (fix the setup), 1 for a run that failed (the thread's saved state is kept, so it can be retried).
 * A full disk is named as such, whichever layer hit it (a file write, SQLite, stdout).
 */
import { isHarnessError } from "@deerflow/harness";
import { UsageError } from "./usage-error.js";

/** Errors the user fixes in their command line or setup (exit 2); the rest are failed runs (exit 1). */
const SETUP_ERRORS = new Set([
  "config_invalid",
  "config_not_found",
  "model_unknown",
  "tool_conflict",
  "upload_rejected",
  "thread_invalid",
  "sandbox_failed",
  "storage_unusable",
  "agent_not_found",
  "agent_exists",
]);

/** A failure as the CLI reports it: exit code, a machine-readable code, and the one-line message. */
export interface Failure {
  exit: number;
  code: string;
  message: string;
}

/** True for "no space left" from node (ENOSPC) or SQLite (SQLITE_FULL), however deeply wrapped. */
export function isDiskFull(error: unknown): boolean {
  for (
    let current = error, depth = 0;
    current && depth < 5;
    current = (current as { cause?: unknown }).cause, depth += 1
  ) {
    const code = (current as { code?: unknown }).code;
    if (code === "ENOSPC" || code === "SQLITE_FULL") return true;
    if (current instanceof Error && /\bENOSPC\b|database or disk is full/.test(current.message)) return true;
  }
  return false;
}

/** Classifies an error thrown by a command. */
export function describeFailure(error: unknown): Failure {
  if (error instanceof UsageError) return { exit: 2, code: "usage", message: error.message };
  if (isDiskFull(error)) {
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return {
      exit: 1,
      code: "disk_full",
      message: `The disk is full (${detail}). Free some space and run again; what was saved before is kept.`,
    };
  }
  if (isHarnessError(error))
    return { exit: SETUP_ERRORS.has(error.code) ? 2 : 1, code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { exit: 1, code: "failed", message: message.split("\n")[0] ?? "" };
}

/** Writes the error to stderr and returns the exit code. */
export function reportError(error: unknown): number {
  const failure = describeFailure(error);
  process.stderr.write(`deerflow: ${failure.message}\n`);
  if (process.env.DEERFLOW_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return failure.exit;
}
