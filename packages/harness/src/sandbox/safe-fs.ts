/**
 * File access that re-checks the path policy on the file actually opened. The policy resolves
 * symlinks before a tool touches a file, but a command running at the same moment could swap a
 * directory for a link in between. Opening with O_NOFOLLOW and then asking the kernel where the open
 * descriptor points (`/proc/self/fd/N`) closes that gap for reads and writes on Linux: nothing is read
 * or written until the opened file is known to be inside the sandbox. (Elsewhere the second check is
 * skipped and only the first one applies.)
 */
import fs from "node:fs";
import path from "node:path";
import type { AllowedPath, PathAccess, PathPolicy } from "./path-policy.js";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW } = fs.constants;

/** An error a file tool reports to the model as text. */
export class FileAccessError extends Error {}

/** Opens `target.realPath` and verifies where the descriptor points; throws FileAccessError when outside. */
async function openChecked(policy: PathPolicy, target: AllowedPath, flags: number, access: PathAccess): Promise<fs.promises.FileHandle> {
  const handle = await fs.promises.open(target.realPath, flags | O_NOFOLLOW, 0o644);
  const opened = await descriptorPath(handle.fd);
  if (opened !== undefined && !policy.allowsRealPath(opened, access)) {
    await handle.close();
    // The file was created by this very open (O_EXCL) in the wrong place: take it back.
    if (flags & O_EXCL) await fs.promises.unlink(opened).catch(() => undefined);
    throw new FileAccessError(`Access denied: ${target.virtualPath} changed to point outside the sandbox while it was being opened.`);
  }
  return handle;
}

async function descriptorPath(fd: number): Promise<string | undefined> {
  try {
    return await fs.promises.readlink(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/** Opens a regular file for reading after the descriptor check; the caller closes the handle. */
export async function openReadChecked(policy: PathPolicy, target: AllowedPath): Promise<fs.promises.FileHandle> {
  const handle = await openChecked(policy, target, O_RDONLY, "read");
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw new FileAccessError(`${target.virtualPath} is not a regular file.`);
  }
  return handle;
}

/** Reads at most `maxBytes` of a regular file. Returns the bytes and the file's full size. */
export async function readFileChecked(
  policy: PathPolicy,
  target: AllowedPath,
  maxBytes: number,
): Promise<{ data: Buffer; size: number }> {
  const handle = await openChecked(policy, target, O_RDONLY, "read");
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new FileAccessError(`${target.virtualPath} is not a regular file.`);
    const length = Math.min(stat.size, maxBytes);
    const data = Buffer.alloc(length);
    let offset = 0;
    while (offset < length) {
      const { bytesRead } = await handle.read(data, offset, length - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    return { data: data.subarray(0, offset), size: stat.size };
  } finally {
    await handle.close();
  }
}

/** Writes (or appends) `data`, creating parent directories. Never truncates before the check passed. */
export async function writeFileChecked(policy: PathPolicy, target: AllowedPath, data: string | Buffer, append: boolean): Promise<void> {
  await fs.promises.mkdir(path.dirname(target.realPath), { recursive: true });
  let created = false;
  let handle: fs.promises.FileHandle;
  try {
    handle = await openChecked(policy, target, O_WRONLY | O_CREAT | O_EXCL | (append ? O_APPEND : 0), "write");
    created = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    handle = await openChecked(policy, target, O_WRONLY | (append ? O_APPEND : 0), "write");
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new FileAccessError(`${target.virtualPath} is not a regular file.`);
    if (!append && !created) await handle.truncate(0);
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}

const locks = new Map<string, Promise<unknown>>();

/** Runs `body` while holding a per-path lock, so two writes to one file in one step do not interleave. */
export async function withPathLock<T>(key: string, body: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const run = previous.then(body, body);
  const settled = run.catch(() => undefined);
  locks.set(key, settled);
  try {
    return await run;
  } finally {
    if (locks.get(key) === settled) locks.delete(key);
  }
}
