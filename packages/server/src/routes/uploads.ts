/**
 * Uploads (contract §B.4, inventory §11.1): DeerFlow's UI posts the user's files as multipart `files`
 * before it sends the message, then names them in `additional_kwargs.files`. The thread may not exist
 * yet (the browser mints its id), so only the id is checked.
 *
 * Storage is the harness's `saveUploads`, the code behind `deerflow run --upload`: the same safe names,
 * the same limits (`uploads:` config), all or nothing, and a taken name gets `_1`, `_2` instead of
 * overwriting. A name that cannot be made safe is skipped and reported, as DeerFlow does. The request
 * is streamed to a private temp directory first; a body over the total limit is cut off with a 413
 * before it is all read. The files' bytes count against the caller's `upload_bytes_per_day` quota
 * (auth/quotas.ts) before they are stored; an upload over it is a 429 and nothing is kept.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  cleanUploadName,
  FileAccessError,
  isHarnessError,
  PathPolicy,
  saveUploads,
  STAGING_PREFIX,
  threadUserDataDir,
  type UploadLimits,
  validateThreadId,
  VIRTUAL_UPLOADS,
  withDirChecked,
} from "@deerflow/harness";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { type Caller, callerOf } from "../auth/caller.js";
import { admitUpload, refundUpload } from "../auth/quotas.js";
import { HttpError, notFound } from "../http/errors.js";
import { multipartFiles } from "../http/multipart.js";
import { pathId } from "../http/validate.js";
import { isDiskFull } from "../runs/disk-full.js";

/** The thread id of the path, checked as the harness checks it before it names a directory (422). */
export function threadDirId(c: Context): string {
  const id = pathId(c, "thread_id");
  try {
    return validateThreadId(id);
  } catch (error) {
    throw new HttpError(422, (error as Error).message);
  }
}

/** Room for multipart boundaries and headers on top of the files themselves. */
const MULTIPART_OVERHEAD = 1024 * 1024;

/** The upload limits of the config. */
export function uploadLimits(context: ServerContext): UploadLimits {
  const { max_files, max_file_size, max_total_size } = context.config.uploads;
  return { maxFiles: max_files, maxFileSize: max_file_size, maxTotalSize: max_total_size };
}

/** The artifact URL of a file in a thread, as the UI links it (mount `/api`). */
export function artifactUrl(threadId: string, virtualPath: string): string {
  return `/api/threads/${threadId}/artifacts${virtualPath.split("/").map(encodeURIComponent).join("/")}`;
}

function describe(
  threadId: string,
  filename: string,
  size: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const virtualPath = `${VIRTUAL_UPLOADS}/${filename}`;
  return {
    filename,
    size,
    path: virtualPath,
    virtual_path: virtualPath,
    artifact_url: artifactUrl(threadId, virtualPath),
    ...extra,
  };
}

/** Runs `body` on the thread's uploads directory, held open so a link swapped in cannot redirect it. */
async function inUploads<T>(
  home: string,
  threadId: string,
  body: (entry: (name: string) => string, realDir: string) => Promise<T>,
): Promise<T> {
  const policy = new PathPolicy({ userDataDir: threadUserDataDir(home, threadId) });
  const dir = policy.resolve(VIRTUAL_UPLOADS, "write");
  if (!dir.ok) throw new HttpError(403, dir.error);
  try {
    return await withDirChecked(policy, dir, (entry) => body(entry, dir.realPath));
  } catch (error) {
    if (error instanceof FileAccessError) throw new HttpError(403, error.message);
    throw error;
  }
}

async function receiveFiles(c: Context, limits: UploadLimits): Promise<File[]> {
  const files = await multipartFiles(
    c,
    (reason) => `The upload is not a valid multipart/form-data body (${reason}). Send the files in a "files" field.`,
  );
  if (files.length === 0)
    throw new HttpError(422, 'No files in the upload. Send them as multipart/form-data in a "files" field.');
  if (files.length > limits.maxFiles)
    throw new HttpError(413, `${files.length} files given; at most ${limits.maxFiles} per upload.`);
  let total = 0;
  for (const file of files) {
    if (file.size > limits.maxFileSize)
      throw new HttpError(
        413,
        `${file.name} is ${file.size} bytes, over the limit of ${limits.maxFileSize} bytes per file.`,
      );
    total += file.size;
  }
  if (total > limits.maxTotalSize)
    throw new HttpError(
      413,
      `The files add up to ${total} bytes, over the limit of ${limits.maxTotalSize} bytes per upload.`,
    );
  return files;
}

/**
 * Stores files under their cleaned names in the thread's uploads (the upload route and the chat
 * channels share this): the caller's upload quota first, then the harness's all-or-nothing save.
 * Returns each stored file as the UI describes it.
 */
export async function storeUploads(
  context: ServerContext,
  caller: Caller,
  threadId: string,
  accepted: Array<{ file: File; name: string }>,
): Promise<Record<string, unknown>[]> {
  const limits = uploadLimits(context);
  const bytes = accepted.reduce((sum, { file }) => sum + file.size, 0);
  const staging = await fs.promises.mkdtemp(path.join(os.tmpdir(), "deerflow-upload-"));
  let counted = false;
  try {
    await admitUpload(context, caller, bytes);
    counted = true;
    const sources = [];
    for (const { file, name } of accepted) {
      const hostPath = path.join(staging, randomBytes(6).toString("hex"));
      await fs.promises.writeFile(hostPath, new Uint8Array(await file.arrayBuffer()), { mode: 0o600 });
      sources.push({ path: hostPath, name });
    }
    const stored = sources.length > 0 ? await saveUploads(context.harness.home, threadId, sources, limits) : [];
    return stored.map((file, index) =>
      describe(
        threadId,
        file.filename,
        file.size,
        file.filename !== accepted[index]!.file.name ? { original_filename: accepted[index]!.file.name } : {},
      ),
    );
  } catch (error) {
    // Nothing was stored (saveUploads is all or nothing): the bytes do not count.
    if (counted) await refundUpload(context, caller, bytes).catch(() => {});
    if (isDiskFull(error))
      throw new HttpError(
        507,
        "The server's disk is full, so the upload was not saved (nothing was kept). Free space on the server's disk, then upload again.",
      );
    if (isHarnessError(error) && error.code === "upload_rejected")
      throw new HttpError(/over the limit|more than|at most/.test(error.message) ? 413 : 400, error.message);
    throw error;
  } finally {
    await fs.promises.rm(staging, { recursive: true, force: true });
  }
}

/** Registers the upload routes. */
export const registerUploadRoutes: RegisterRoutes = (api, context) => {
  const limits = () => uploadLimits(context);

  api.post(
    "/threads/:thread_id/uploads",
    bodyLimit({
      maxSize: context.config.uploads.max_total_size + MULTIPART_OVERHEAD,
      onError: (c) =>
        c.json(
          { detail: `The upload is larger than ${context.config.uploads.max_total_size} bytes, the limit per upload.` },
          413,
        ),
    }),
    async (c) => {
      const threadId = threadDirId(c);
      const files = await receiveFiles(c, limits());
      const skipped: Array<{ filename: string; reason: string }> = [];
      const accepted: Array<{ file: File; name: string }> = [];
      for (const file of files) {
        const name = cleanUploadName(file.name);
        if (typeof name === "string") accepted.push({ file, name });
        else skipped.push({ filename: file.name, reason: name.error });
      }
      const stored = await storeUploads(context, callerOf(c), threadId, accepted);
      const message =
        stored.length > 0
          ? `Uploaded ${stored.length} file${stored.length === 1 ? "" : "s"}.`
          : "No file was uploaded.";
      return c.json({
        success: stored.length > 0,
        files: stored,
        message: skipped.length
          ? `${message} Skipped ${skipped.length}: ${skipped.map((s) => s.reason).join("; ")}.`
          : message,
        skipped_files: skipped,
      });
    },
  );

  api.get("/threads/:thread_id/uploads/limits", (c) => {
    threadDirId(c);
    const { maxFiles, maxFileSize, maxTotalSize } = limits();
    return c.json({ max_files: maxFiles, max_file_size: maxFileSize, max_total_size: maxTotalSize });
  });

  api.get("/threads/:thread_id/uploads/list", async (c) => {
    const threadId = threadDirId(c);
    if (!fs.existsSync(path.join(threadUserDataDir(context.harness.home, threadId), "uploads")))
      return c.json({ files: [], count: 0 });
    const files = await inUploads(context.harness.home, threadId, async (_entry, realDir) => {
      const out: Record<string, unknown>[] = [];
      for (const entry of await fs.promises.readdir(realDir, { withFileTypes: true })) {
        if (!entry.isFile() || entry.name.startsWith(STAGING_PREFIX)) continue;
        const stat = await fs.promises.lstat(path.join(realDir, entry.name));
        out.push(describe(threadId, entry.name, stat.size, { modified: stat.mtime.toISOString() }));
      }
      return out.sort((a, b) => (String(a.filename) < String(b.filename) ? -1 : 1));
    });
    return c.json({ files, count: files.length });
  });

  api.delete("/threads/:thread_id/uploads/:filename", async (c) => {
    const threadId = threadDirId(c);
    const filename = c.req.param("filename");
    const clean = cleanUploadName(filename);
    if (typeof clean !== "string" || clean !== filename) {
      throw new HttpError(
        422,
        `"${filename.slice(0, 100)}" is not an upload name${typeof clean === "string" ? "" : ` (${clean.error})`}. Use a name from GET .../uploads/list.`,
      );
    }
    if (!fs.existsSync(path.join(threadUserDataDir(context.harness.home, threadId), "uploads")))
      throw notFound(`Upload ${filename}`);
    await inUploads(context.harness.home, threadId, async (entry) => {
      const stat = await fs.promises.lstat(entry(filename)).catch(() => null);
      if (!stat) throw notFound(`Upload ${filename}`);
      if (!stat.isFile())
        throw new HttpError(400, `${filename} is not a regular file; only uploaded files can be deleted.`);
      await fs.promises.unlink(entry(filename));
    });
    return c.json({ success: true, message: `Deleted ${filename}.` });
  });
};
