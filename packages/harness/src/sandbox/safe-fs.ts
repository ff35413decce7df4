/**
 * File access that cannot be led out of the sandbox by a symlink, even one swapped in while the tool
 * runs. The path policy resolves symlinks before a tool touches a file, but a command running at the
 * same moment (under bubblewrap the agent can rename anything inside its thread) could swap a
 * directory for a link in between, and `mkdir -p` or a plain `open` would follow it.
 *
 * So on Linux every file operation walks the checked path one component at a time from the root the
 * policy allowed (the thread's `user-data` or the skills directory), like `openat(dirfd, name,
 * O_NOFOLLOW)`: each directory is opened relative to the previous directory's descriptor through
 * `/proc/self/fd/N/name` (Node has no `openat`; that path resolves `name` inside exactly the directory
 * the descriptor holds) with `O_NOFOLLOW | O_DIRECTORY`, missing parents are created with `mkdir` the
 * same way (mkdir never follows a final link), and the file itself is checked with `lstat` and opened
 * with `O_NOFOLLOW | O_NONBLOCK`. A link anywhere along the path, or a FIFO, device or socket at the
 * end, is refused before a byte is read or written, and nothing is created outside. Where `/proc` is
 * missing the walk falls back to one `O_NOFOLLOW` open of the resolved path.
 */
import fs from "node:fs";
import path from "node:path";
import type { AllowedPath, PathAccess, PathPolicy } from "./path-policy.js";
import { isInsideDir } from "./virtual-paths.js";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = fs.constants;

/** An error a file tool reports to the model as text. */
export class FileAccessError extends Error {}

const PROC_FD = "/proc/self/fd";
const HAS_PROC_FD = (() => {
  try {
    return fs.statSync(PROC_FD).isDirectory();
  } catch {
    return false;
  }
})();

function changed(target: AllowedPath): FileAccessError {
  return new FileAccessError(
    `Access denied: ${target.virtualPath} changed to go through a symlink while it was being opened. Try again with a path that has no links.`,
  );
}

function notRegular(target: AllowedPath, stat: fs.Stats): FileAccessError {
  const what = stat.isDirectory()
    ? "a directory"
    : stat.isFIFO()
      ? "a FIFO (named pipe)"
      : stat.isSocket()
        ? "a socket"
        : stat.isCharacterDevice() || stat.isBlockDevice()
          ? "a device"
          : "not a regular file";
  return new FileAccessError(
    `${target.virtualPath} is not a regular file (it is ${what}); file tools only read and write regular files.`,
  );
}

/** The real root directory `realPath` lies under, as the policy allows it for `access`. */
function rootOf(policy: PathPolicy, target: AllowedPath, access: PathAccess): string {
  const roots = [realOrSelf(policy.userDataDir)];
  if (access === "read" && policy.skillsDir) roots.push(realOrSelf(policy.skillsDir));
  for (const mount of policy.mounts) if (access === "read" || !mount.readOnly) roots.push(realOrSelf(mount.hostPath));
  const root = roots.find((candidate) => isInsideDir(target.realPath, candidate));
  if (!root || !policy.allowsRealPath(target.realPath, access)) throw changed(target);
  return root;
}

/** `name` inside the directory open at `dirFd`, as a path the kernel resolves like `openat`. */
function at(dirFd: number, name: string): string {
  return `${PROC_FD}/${dirFd}/${name}`;
}

/**
 * Opens the directory holding `target` by walking from its root without following any link; creates
 * missing directories when `create` is set. Returns the directory handle and the final name.
 */
async function openParent(
  policy: PathPolicy,
  target: AllowedPath,
  access: PathAccess,
  create: boolean,
): Promise<{ dir: fs.promises.FileHandle; name: string }> {
  const root = rootOf(policy, target, access);
  const parts = path.relative(root, target.realPath).split(path.sep).filter(Boolean);
  const name = parts.pop();
  if (name === undefined) throw new FileAccessError(`${target.virtualPath} is a directory.`);
  let dir = await fs.promises.open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    for (const part of parts) {
      let next: fs.promises.FileHandle;
      try {
        next = await fs.promises.open(at(dir.fd, part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ELOOP" || code === "ENOTDIR") throw changed(target);
        if (code !== "ENOENT" || !create) throw error;
        await fs.promises.mkdir(at(dir.fd, part), 0o755).catch((mkdirError: NodeJS.ErrnoException) => {
          if (mkdirError.code !== "EEXIST") throw mkdirError;
        });
        try {
          next = await fs.promises.open(at(dir.fd, part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        } catch (reopenError) {
          const code2 = (reopenError as NodeJS.ErrnoException).code;
          throw code2 === "ELOOP" || code2 === "ENOTDIR" ? changed(target) : reopenError;
        }
      }
      await dir.close();
      dir = next;
    }
    return { dir, name };
  } catch (error) {
    await dir.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Opens the final file with `flags` (plus `O_NOFOLLOW | O_NONBLOCK`) after checking with `lstat` that
 * it is absent or a regular file, then checks the descriptor again (`fstat`, and where it points).
 */
async function openChecked(
  policy: PathPolicy,
  target: AllowedPath,
  flags: number,
  access: PathAccess,
  create = false,
): Promise<fs.promises.FileHandle> {
  if (!HAS_PROC_FD) return openFallback(target, flags);
  const { dir, name } = await openParent(policy, target, access, create);
  let handle: fs.promises.FileHandle;
  let before: fs.Stats | null = null;
  try {
    const where = at(dir.fd, name);
    before = await fs.promises.lstat(where).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" && flags & O_CREAT) return null;
      throw error;
    });
    if (before?.isSymbolicLink()) throw changed(target);
    if (before && !before.isFile()) throw notRegular(target, before);
    try {
      handle = await fs.promises.open(where, flags | O_NOFOLLOW | O_NONBLOCK, 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ELOOP") throw changed(target);
      throw error;
    }
  } finally {
    await dir.close();
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notRegular(target, stat);
    if (before && (before.ino !== stat.ino || before.dev !== stat.dev)) throw changed(target);
    const opened = await descriptorPath(handle.fd);
    if (opened !== undefined && !policy.allowsRealPath(opened, access)) throw changed(target);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/** Without `/proc`: one `O_NOFOLLOW | O_NONBLOCK` open of the resolved path (the final link only). */
async function openFallback(target: AllowedPath, flags: number): Promise<fs.promises.FileHandle> {
  if (flags & O_CREAT) await fs.promises.mkdir(path.dirname(target.realPath), { recursive: true });
  const handle = await fs.promises.open(target.realPath, flags | O_NOFOLLOW | O_NONBLOCK, 0o644);
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw notRegular(target, stat);
  }
  return handle;
}

async function descriptorPath(fd: number): Promise<string | undefined> {
  try {
    return await fs.promises.readlink(`${PROC_FD}/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Runs `body` with the checked directory `dir` held open (created if missing, reached without
 * following links); `body` gets a function naming an entry of exactly that directory, for `copyFile`,
 * `link` and friends, which then cannot be redirected by a link swapped in for the directory.
 */
export async function withDirChecked<T>(
  policy: PathPolicy,
  dir: AllowedPath,
  body: (entry: (name: string) => string) => Promise<T>,
): Promise<T> {
  if (!HAS_PROC_FD) return body((name) => path.join(dir.realPath, name));
  const probe: AllowedPath = { ...dir, realPath: path.join(dir.realPath, "entry") };
  const { dir: handle } = await openParent(policy, probe, "write", true);
  try {
    return await body((name) => at(handle.fd, name));
  } finally {
    await handle.close();
  }
}

/** Opens a regular file for reading after the checks; the caller closes the handle. */
export async function openReadChecked(policy: PathPolicy, target: AllowedPath): Promise<fs.promises.FileHandle> {
  return openChecked(policy, target, O_RDONLY, "read");
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

/**
 * Writes (or appends) `data`, creating parent directories without following links. Never truncates
 * before every check passed.
 */
export async function writeFileChecked(
  policy: PathPolicy,
  target: AllowedPath,
  data: string | Buffer,
  append: boolean,
): Promise<void> {
  let created = false;
  let handle: fs.promises.FileHandle;
  try {
    handle = await openChecked(policy, target, O_WRONLY | O_CREAT | O_EXCL | (append ? O_APPEND : 0), "write", true);
    created = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    handle = await openChecked(policy, target, O_WRONLY | (append ? O_APPEND : 0), "write", true);
  }
  try {
    if (!append && !created) await handle.truncate(0);
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}

function realOrSelf(dir: string): string {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return dir;
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
