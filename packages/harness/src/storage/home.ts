/**
 * Where DeerFlow.ts keeps its files: `DEER_FLOW_HOME`, else `.deer-flow` in the working directory.
 * Threads, checkpoints and memory all live below it, so one directory is all a user backs up or deletes.
 */
import path from "node:path";

/** Resolves the home directory (absolute). */
export function resolveHome(options: { home?: string; env?: Record<string, string | undefined>; cwd?: string } = {}): string {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  return path.resolve(cwd, options.home ?? env.DEER_FLOW_HOME ?? ".deer-flow");
}

/** The SQLite file holding checkpoints (and the history archive). */
export function checkpointsPath(home: string): string {
  return path.join(home, "checkpoints.sqlite");
}
