/**
 * The audit log of `bash`: one JSON line per command the model asked to run, in the home.
 *
 * Commands run with the harness user's rights when the sandbox is local, and even under bubblewrap an
 * operator wants to know afterwards what an agent did: which thread and run, what it ran, how it ended
 * and how long it took. The bash tool appends one line per call to `{home}/logs/bash-audit.jsonl`,
 * refused commands included (with the reason). Appends are single writes in append mode, so concurrent
 * calls do not interleave lines. A log that cannot be written never fails the command; the error goes to
 * the harness log when one is given.
 */
import fs from "node:fs/promises";
import path from "node:path";

/** One line of the bash audit log. */
export interface BashAuditEntry {
  /** When the command finished (ISO 8601). */
  timestamp: string;
  thread_id: string | null;
  /** `configurable.run_id` (the server's run), or null (CLI and library runs without one). */
  run_id: string | null;
  /** The command as the model sent it, cut to {@link AUDIT_COMMAND_MAX_CHARS} (see `command_chars`). */
  command: string;
  /** Length of the full command when it was cut. */
  command_chars?: number;
  /** The exit code; null when the command did not exit normally (signal, timeout, cancelled, refused). */
  exit_code: number | null;
  /** The signal that ended it, if any. */
  signal?: string;
  timed_out?: boolean;
  cancelled?: boolean;
  /** Why the command was not run (path policy, size limit, no sandbox). */
  refused?: string;
  duration_ms: number;
}

/** Commands longer than this are cut in the log (a script written inline can be 128 KiB). */
export const AUDIT_COMMAND_MAX_CHARS = 10_000;

/** Where a home's bash audit log lives. */
export function bashAuditPath(home: string): string {
  return path.join(home, "logs", "bash-audit.jsonl");
}

/** An entry with the command cut to the limit (and its full length recorded). */
export function auditEntry(entry: Omit<BashAuditEntry, "command_chars">): BashAuditEntry {
  if (entry.command.length <= AUDIT_COMMAND_MAX_CHARS) return entry;
  return {
    ...entry,
    command: `${entry.command.slice(0, AUDIT_COMMAND_MAX_CHARS)}…`,
    command_chars: entry.command.length,
  };
}

/**
 * Appends one entry as a JSON line, creating the directory (owner-only) when needed.
 *
 * @example
 * await appendBashAudit(bashAuditPath(home), auditEntry({ timestamp, thread_id: "t1", run_id: null, command: "ls", exit_code: 0, duration_ms: 12 }));
 */
export async function appendBashAudit(file: string, entry: BashAuditEntry): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await fs.appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
}
