/**
 * Where DeerFlow.ts keeps its files: `DEER_FLOW_HOME`, else `.deer-flow` in the working directory.
 * Threads, checkpoints and memory all live below it, so one directory is all a user backs up or deletes.
 * An empty `DEER_FLOW_HOME` (`DEER_FLOW_HOME= deerflow run ...`, or a blank line in a service file) counts
 * as unset, as in DeerFlow: resolved literally it would be the working directory itself, and the
 * checkpoints and thread folders would land loose among the user's files.
 */
import path from "node:path";

/**
 * Resolves the home directory (absolute): `home`, else `DEER_FLOW_HOME`, else `./.deer-flow`. A blank
 * value (empty or only spaces) counts as not given.
 *
 * @example
 * resolveHome({ env: { DEER_FLOW_HOME: "" }, cwd: "/work" }); // "/work/.deer-flow"
 */
export function resolveHome(
  options: { home?: string; env?: Record<string, string | undefined>; cwd?: string } = {},
): string {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  return path.resolve(cwd, given(options.home) ?? given(env.DEER_FLOW_HOME) ?? ".deer-flow");
}

function given(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
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
