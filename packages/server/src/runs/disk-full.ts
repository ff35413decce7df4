/**
 * Telling a full disk from other failures, whichever layer hit it: node (`ENOSPC`, `EDQUOT`), SQLite
 * (`SQLITE_FULL`, "database or disk is full") or Postgres (`53100 disk_full`, `53400`-class limits are
 * not this). The server answers those with 507 and a sentence a user can act on, never a host path, and
 * the worker keeps retrying what it could not record instead of leaving a run `running`.
 */

/** True when `error` (or one of its causes) says the disk is full. */
export function isDiskFull(error: unknown): boolean {
  for (
    let current = error, depth = 0;
    current && depth < 5;
    current = (current as { cause?: unknown }).cause, depth += 1
  ) {
    const code = (current as { code?: unknown }).code;
    if (code === "ENOSPC" || code === "EDQUOT" || code === "SQLITE_FULL" || code === "53100") return true;
    if (
      current instanceof Error &&
      /\bENOSPC\b|database or disk is full|No space left on device/i.test(current.message)
    )
      return true;
  }
  return false;
}

/** What a client is told when the server's disk is full (no path: the host's layout is not its business). */
export const DISK_FULL_DETAIL =
  "The server's disk is full, so this could not be saved. Free space on the server's disk (or ask its operator to), then try again.";
