/**
 * Prints a failure as one or a few plain lines and picks the exit code: 2 for configuration problems
 * (fix the setup), 1 for a run that failed (the thread's saved state is kept, so it can be retried).
 */
import { isHarnessError } from "@deerflow/harness";

/** Errors the user fixes in their command line or setup (exit 2); the rest are failed runs (exit 1). */
const SETUP_ERRORS = new Set(["config_invalid", "config_not_found", "model_unknown", "tool_conflict", "upload_rejected", "thread_invalid"]);

/** Writes the error to stderr and returns the exit code. */
export function reportError(error: unknown): number {
  if (isHarnessError(error)) {
    process.stderr.write(`deerflow: ${error.message}\n`);
    return SETUP_ERRORS.has(error.code) ? 2 : 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`deerflow: ${message.split("\n")[0]}\n`);
  if (process.env.DEERFLOW_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return 1;
}
