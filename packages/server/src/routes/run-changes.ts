/**
 * `GET /threads/{id}/runs/{run_id}/changes`: the files a run created or changed in the thread's
 * workspace and outputs (`/mnt/user-data/workspace`, `/mnt/user-data/outputs`), for the web app's
 * changes panel. Not in DeerFlow.
 *
 * Computed from the files themselves, not from the run's tool calls, so a file a `bash` command wrote
 * counts as much as one from `write_file` or `str_replace`: a file belongs to the run when it was last
 * modified between the run's start and its end (now, while it runs), with a second of slack at the end
 * for the write that finished as the run was recorded. It is `created` when the file system says it was
 * born during the run, else `modified`. A thread runs one run at a time, so the windows do not overlap;
 * a file a later run touched again is that later run's. Files the run deleted are not listed, uploads
 * (the user's) are never listed, symlinks are skipped, and at most {@link MAX_FILES} are listed.
 * The thread must be the caller's (the thread guard, and `requireThread` here); the run must be the
 * thread's, else 404.
 */
import type { Dirent, Stats } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { threadUserDataDir } from "@deerflow/harness";
import type { RegisterRoutes } from "../context.js";
import { notFound } from "../http/errors.js";
import { callerOf } from "../auth/caller.js";
import { requireThread } from "../runs/threads.js";
import { threadDirId } from "./uploads.js";

/** Most files one answer lists; `truncated` says when there were more. */
export const MAX_FILES = 500;
const SLACK_MS = 1000;
const DIRS = ["workspace", "outputs"] as const;

/** One changed file as the route answers it. */
export interface ChangedFile {
  /** The path the agent sees, e.g. `/mnt/user-data/outputs/report.md`. */
  path: string;
  kind: "created" | "modified";
  size: number;
  modified_at: string;
}

/** Walks `dir` (no symlinks followed), calling `visit` with each regular file's virtual path and stats. */
async function walk(dir: string, virtual: string, visit: (file: string, stats: Stats) => boolean): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return; // not made yet
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    const shown = `${virtual}/${entry.name}`;
    if (entry.isDirectory()) await walk(full, shown, visit);
    else if (entry.isFile()) {
      const stats = await lstat(full).catch(() => undefined);
      if (stats && !visit(shown, stats)) return;
    }
  }
}

/** Registers the changes route. */
export const registerRunChangesRoutes: RegisterRoutes = (api, context) => {
  api.get("/threads/:thread_id/runs/:run_id/changes", async (c) => {
    const threadId = threadDirId(c);
    await requireThread(context, callerOf(c), threadId);
    const runId = c.req.param("run_id");
    const run = await context.runs.get(runId);
    if (!run || run.thread_id !== threadId) throw notFound(`Run ${runId} of thread ${threadId}`);
    const running = run.status === "pending" || run.status === "running";
    const start = Date.parse(run.created_at);
    const end = running ? Date.now() + SLACK_MS : Date.parse(run.updated_at) + SLACK_MS;
    const files: ChangedFile[] = [];
    let truncated = false;
    const root = threadUserDataDir(context.harness.home, threadId);
    for (const dir of DIRS) {
      await walk(path.join(root, dir), `/mnt/user-data/${dir}`, (file, stats) => {
        if (stats.mtimeMs < start || stats.mtimeMs > end) return true;
        if (files.length >= MAX_FILES) {
          truncated = true;
          return false;
        }
        const born = stats.birthtimeMs > 0 ? stats.birthtimeMs : undefined;
        files.push({
          path: file,
          kind: born !== undefined && born >= start ? "created" : "modified",
          size: stats.size,
          modified_at: new Date(stats.mtimeMs).toISOString(),
        });
        return true;
      });
    }
    return c.json({ run_id: run.run_id, status: run.status, files, truncated });
  });
};
