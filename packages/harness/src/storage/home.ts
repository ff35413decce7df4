/**
 * Where DeerFlow.ts keeps its files: `DEER_FLOW_HOME`, else `.deer-flow` in the working directory.
 * Threads, checkpoints and memory all live below it, so one directory is all a user backs up or deletes.
 */
import path from "node:path";

/** Resolves the home directory (absolute). */
export function resolveHome(
  options: { home?: string; env?: Record<string, string | undefined>; cwd?: string } = {},
): string {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  return path.resolve(cwd, options.home ?? env.DEER_FLOW_HOME ?? ".deer-flow");
}

/** The SQLite file holding checkpoints (and the history archive). */
export function checkpointsPath(home: string): string {
  return path.join(home, "checkpoints.sqlite");
}

/**
 * The checkpoints file the `database:` section selects: `sqlite_path` (absolute, or relative to the home)
 * or `{home}/checkpoints.sqlite`. The history archive and the thread leases live in the same file.
 */
export function databaseFile(home: string, database: { sqlite_path: string | null } | undefined): string {
  const configured = database?.sqlite_path?.trim();
  return configured ? path.resolve(home, configured) : checkpointsPath(home);
}
