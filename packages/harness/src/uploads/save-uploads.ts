/**
 * Copies files into a thread's uploads directory, as `deerflow run --upload FILE` (and later the
 * server's upload route) does. All or nothing: every file is checked (name, type, per-file and total
 * size, count) before anything is copied, copies are staged under a temporary name, and a name that
 * is already taken gets a `_1`, `_2`, ... suffix instead of overwriting the earlier upload.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { HarnessError } from "../errors.js";
import { PathPolicy } from "../sandbox/path-policy.js";
import { FileAccessError, withDirChecked } from "../sandbox/safe-fs.js";
import { VIRTUAL_UPLOADS, ensureThreadDirs, threadUserDataDir } from "../sandbox/virtual-paths.js";
import type { UploadedFile } from "../state/shapes.js";
import { STAGING_PREFIX, cleanUploadName, numberedName } from "./upload-name.js";
import { UPLOADS_DEFAULTS } from "../config/defaults.js";

/** Limits of one upload request (the `uploads:` config section). */
export interface UploadLimits {
  /** Files per request. DeerFlow: 10. */
  maxFiles: number;
  /** Bytes per file. DeerFlow: 50 MiB. */
  maxFileSize: number;
  /** Bytes per request. DeerFlow: 100 MiB. */
  maxTotalSize: number;
}

/** DeerFlow's upload limits. */
export const DEFAULT_UPLOAD_LIMITS: Readonly<UploadLimits> = Object.freeze({
  maxFiles: UPLOADS_DEFAULTS.max_files,
  maxFileSize: UPLOADS_DEFAULTS.max_file_size,
  maxTotalSize: UPLOADS_DEFAULTS.max_total_size,
});

/** A host file to upload, optionally under another name (default: its base name). */
export type UploadSource = string | { path: string; name?: string };

interface CheckedSource {
  source: string;
  name: string;
  size: number;
}

/**
 * Copies `hostFiles` into `{home}/threads/{threadId}/user-data/uploads/` and returns what was stored.
 * Throws a `HarnessError` with code "upload_rejected" (and copies nothing) when any file is refused.
 *
 * @example
 * ```ts
 * const files = await saveUploads(home, "t1", ["notes.txt"]);
 * files[0].virtual_path; // "/mnt/user-data/uploads/notes.txt"
 * ```
 */
export async function saveUploads(
  home: string,
  threadId: string,
  hostFiles: readonly UploadSource[],
  limits: Partial<UploadLimits> = {},
): Promise<UploadedFile[]> {
  const limit = { ...DEFAULT_UPLOAD_LIMITS, ...limits };
  const checked = checkSources(hostFiles, limit);
  ensureThreadDirs(home, threadId);
  const policy = new PathPolicy({ userDataDir: threadUserDataDir(home, threadId) });
  // The uploads dir itself may have been replaced by a link (or be swapped for one while we copy): it
  // goes through the path policy and is then held open, and every copy and link names entries of
  // exactly that directory.
  const uploads = policy.resolve(VIRTUAL_UPLOADS, "write");
  if (!uploads.ok) refuse(uploads.error);
  try {
    return await withDirChecked(policy, uploads, async (entry) => {
      const staged: string[] = [];
      const stored: UploadedFile[] = [];
      try {
        for (const file of checked) {
          const staging = entry(`${STAGING_PREFIX}${randomBytes(6).toString("hex")}.part`);
          staged.push(staging);
          await fs.promises.copyFile(file.source, staging, fs.constants.COPYFILE_EXCL);
          await fs.promises.chmod(staging, 0o644);
          stored.push(await claimName(uploads.realPath, entry, staging, file));
        }
        return stored;
      } catch (error) {
        for (const file of stored) await fs.promises.rm(entry(file.filename), { force: true });
        throw error;
      } finally {
        for (const staging of staged) await fs.promises.rm(staging, { force: true });
      }
    });
  } catch (error) {
    if (error instanceof FileAccessError) refuse(error.message);
    throw error instanceof HarnessError
      ? error
      : new HarnessError("upload_rejected", `Upload failed: ${(error as Error).message}`, { cause: error });
  }
}

function refuse(message: string): never {
  throw new HarnessError("upload_rejected", `Upload refused: ${message}. Nothing was uploaded.`);
}

function checkSources(hostFiles: readonly UploadSource[], limit: UploadLimits): CheckedSource[] {
  if (hostFiles.length === 0) refuse("no files were given");
  if (hostFiles.length > limit.maxFiles)
    refuse(`${hostFiles.length} files given; at most ${limit.maxFiles} per upload`);
  let total = 0;
  return hostFiles.map((entry) => {
    const source = typeof entry === "string" ? entry : entry.path;
    const name = cleanUploadName(
      typeof entry === "string" || entry.name === undefined ? path.basename(source) : entry.name,
    );
    if (typeof name !== "string") refuse(name.error);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(source);
    } catch {
      refuse(`${source} does not exist or cannot be read`);
    }
    if (!stat.isFile()) refuse(`${source} is not a regular file`);
    if (stat.size > limit.maxFileSize)
      refuse(`${name} is ${stat.size} bytes, over the limit of ${limit.maxFileSize} bytes per file`);
    total += stat.size;
    if (total > limit.maxTotalSize)
      refuse(`the files add up to more than ${limit.maxTotalSize} bytes, the limit per upload`);
    return { source, name, size: stat.size };
  });
}

/** Links the staged copy under the first free name (`link` fails instead of overwriting). */
async function claimName(
  uploadsDir: string,
  entry: (name: string) => string,
  staging: string,
  file: CheckedSource,
): Promise<UploadedFile> {
  for (let n = 0; n < 1000; n += 1) {
    const filename = numberedName(file.name, n);
    try {
      await fs.promises.link(staging, entry(filename));
      return {
        filename,
        size: file.size,
        path: path.join(uploadsDir, filename),
        virtual_path: `${VIRTUAL_UPLOADS}/${filename}`,
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  refuse(`too many files named like ${file.name}`);
}
