/**
 * The fixed names of the sandbox: the virtual paths the model sees and where each thread's files live
 * on the host. Everything that maps between the two views (path policy, output masking, the CLI's
 * artifact listing) starts from here, so a thread id never becomes a path before it is validated.
 */
import fs from "node:fs";
import path from "node:path";
import { HarnessError } from "../errors.js";
import type { ThreadDataState } from "../state/shapes.js";

/** Virtual root of a thread's read-write files. */
export const VIRTUAL_USER_DATA = "/mnt/user-data";
/** Default working directory of `bash` and base of relative paths. */
export const VIRTUAL_WORKSPACE = "/mnt/user-data/workspace";
/** Where uploaded files appear. */
export const VIRTUAL_UPLOADS = "/mnt/user-data/uploads";
/** Where deliverables go; `present_files` accepts only these. */
export const VIRTUAL_OUTPUTS = "/mnt/user-data/outputs";
/** Read-only view of the configured skills directory. */
export const VIRTUAL_SKILLS = "/mnt/skills";

/** The three read-write sub-directories of `/mnt/user-data`. */
export const USER_DATA_DIRS = ["workspace", "uploads", "outputs"] as const;

const THREAD_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The thread id rule in words, for error messages (CLI flags, HTTP 422s). */
export const THREAD_ID_RULE = '1-128 letters, digits, "_", "-" or "." (starting with a letter or digit, no "..")';

/**
 * The one thread id rule, shared by the harness, the server and the CLI: 1-128 characters of letters,
 * digits, `_`, `-` and `.`, starting with a letter or digit, without `..`. This keeps a thread id from
 * ever naming a path (`..`, `a/b`, absolute paths, NUL bytes, empty strings).
 *
 * @example
 * ```ts
 * isValidThreadId("thread-42"); // true
 * isValidThreadId("a..b"); // false
 * ```
 */
export function isValidThreadId(id: unknown): id is string {
  return typeof id === "string" && THREAD_ID_PATTERN.test(id) && !id.includes("..");
}

/** Throws a `HarnessError` ("thread_invalid") unless `id` follows {@link isValidThreadId}. */
export function validateThreadId(id: unknown): string {
  if (!isValidThreadId(id)) {
    const shown = typeof id === "string" ? JSON.stringify(id.slice(0, 80)) : String(id);
    throw new HarnessError(
      "thread_invalid",
      `Thread id ${shown} is not valid. Use ${THREAD_ID_RULE}, e.g. "thread-42".`,
    );
  }
  return id;
}

/** Host directory holding a thread's `user-data` (bound at `/mnt/user-data` in the sandbox). */
export function threadUserDataDir(home: string, threadId: string): string {
  return path.join(path.resolve(home), "threads", validateThreadId(threadId), "user-data");
}

/**
 * Host paths of a thread's workspace, uploads and outputs: `{home}/threads/{id}/user-data/{dir}`.
 * Pure: creates nothing (see {@link ensureThreadDirs}).
 *
 * @example
 * ```ts
 * threadPaths("/srv/.deer-flow", "t1").outputs_path; // "/srv/.deer-flow/threads/t1/user-data/outputs"
 * ```
 */
export function threadPaths(home: string, threadId: string): ThreadDataState {
  const base = threadUserDataDir(home, threadId);
  return {
    workspace_path: path.join(base, "workspace"),
    uploads_path: path.join(base, "uploads"),
    outputs_path: path.join(base, "outputs"),
  };
}

/** Creates a thread's three directories (idempotent) and returns their paths. */
export function ensureThreadDirs(home: string, threadId: string): ThreadDataState {
  const paths = threadPaths(home, threadId);
  for (const dir of [paths.workspace_path, paths.uploads_path, paths.outputs_path])
    fs.mkdirSync(dir, { recursive: true });
  return paths;
}

/** True when `child` is `parent` or below it (separator-aware: `/a/bc` is not inside `/a/b`). */
export function isInsideDir(child: string, parent: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith("/") ? parent : `${parent}/`;
  return child.startsWith(prefix);
}
