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
 *
 * `GET /threads/{id}/runs/{run_id}/workspace-changes` answers the same files in the shape DeerFlow's
 * frontend reads for its "files changed" badge and panel (`{available, version, summary, files, limits}`).
 * DeerFlow records each file's contents before the run and diffs them; we keep no copy from before, so a
 * created text file's diff is all additions and a modified file has no diff (its panel then says the
 * diff is unavailable), and deletions are not seen.
 */
import { createHash } from "node:crypto";
import type { Dirent, Stats } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { threadUserDataDir } from "@deerflow/harness";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { notFound } from "../http/errors.js";
import { type Caller, callerOf } from "../auth/caller.js";
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

/** The files a run of the caller's thread created or changed, by the rules the module's comment gives. */
async function runChanges(context: ServerContext, caller: Caller, threadId: string, runId: string) {
  await requireThread(context, caller, threadId);
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
  return { run, files, truncated, root };
}

/** Largest created file whose contents become a diff in DeerFlow's shape. */
const MAX_DIFF_BYTES = 256 * 1024;

/** One file in DeerFlow's `workspace-changes` shape, with a diff of a created text file when asked. */
async function deerflowFile(file: ChangedFile, hostPath: string, withDiff: boolean) {
  let bytes: Buffer | undefined;
  if (file.size <= MAX_DIFF_BYTES) bytes = await readFile(hostPath).catch(() => undefined);
  const binary = bytes !== undefined && bytes.includes(0);
  let diff = "";
  let additions = 0;
  // A created text file's lines are all additions, counted without the diff too (the frontend's badge
  // asks for the summary only).
  if (file.kind === "created" && bytes && !binary) {
    const lines = bytes.toString("utf8").split("\n");
    if (lines.at(-1) === "") lines.pop();
    additions = lines.length;
    if (withDiff)
      diff = [
        `--- /dev/null`,
        `+++ b${file.path}`,
        `@@ -0,0 +1,${additions} @@`,
        ...lines.map((line) => `+${line}`),
      ].join("\n");
  }
  const tooLarge = file.size > MAX_DIFF_BYTES;
  return {
    path: file.path,
    root: file.path.split("/")[3] ?? "workspace",
    status: file.kind,
    binary,
    sensitive: false,
    size_before: null,
    size_after: file.size,
    sha256_before: null,
    sha256_after: bytes ? createHash("sha256").update(bytes).digest("hex") : null,
    diff,
    diff_truncated: false,
    diff_unavailable_reason: diff ? null : binary ? "binary" : tooLarge ? "large" : null,
    additions,
    deletions: 0,
    symlink: false,
    symlink_target_before: null,
    symlink_target_after: null,
  };
}

/** Registers the changes routes: ours and DeerFlow's `workspace-changes`. */
export const registerRunChangesRoutes: RegisterRoutes = (api, context) => {
  api.get("/threads/:thread_id/runs/:run_id/changes", async (c) => {
    const { run, files, truncated } = await runChanges(context, callerOf(c), threadDirId(c), c.req.param("run_id"));
    return c.json({ run_id: run.run_id, status: run.status, files, truncated });
  });

  api.get("/threads/:thread_id/runs/:run_id/workspace-changes", async (c) => {
    const { files, truncated, root } = await runChanges(context, callerOf(c), threadDirId(c), c.req.param("run_id"));
    const includeFiles = c.req.query("include_files") !== "false";
    const includeDiff = c.req.query("include_diff") !== "false";
    const shown = includeFiles
      ? await Promise.all(
          files.map((file) =>
            deerflowFile(file, path.join(root, file.path.slice("/mnt/user-data/".length)), includeDiff),
          ),
        )
      : [];
    const created = files.filter((file) => file.kind === "created").length;
    return c.json({
      available: true,
      version: 1,
      summary: {
        created,
        modified: files.length - created,
        deleted: 0,
        symlink_created: 0,
        additions: shown.reduce((sum, file) => sum + file.additions, 0),
        deletions: 0,
        truncated,
      },
      files: shown,
      limits: { max_files: MAX_FILES, max_diff_bytes: MAX_DIFF_BYTES },
    });
  });
};
