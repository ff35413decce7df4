/**
 * Crash-safe file replacement. A memory file is rewritten whole; writing it in place would leave a
 * truncated, unparseable file if the process were killed mid-write. Instead the bytes go to a temp file
 * in the same directory (same filesystem, so rename is atomic), are fsynced, and the temp file is renamed
 * over the target: a reader sees the old file or the new one, never a mix.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** A unique temp path next to `file`: `.{name}.{pid}.{random}.tmp` (the pid lets orphans be cleaned up). */
export function tempPathFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
}

/** Writes `data` to `file` atomically (temp file, fsync, rename, directory fsync). Creates the directory. */
export function writeFileAtomic(file: string, data: string): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const temp = tempPathFor(file);
  let fd: number | undefined;
  try {
    fd = fs.openSync(temp, "wx", 0o600);
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temp, file);
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fsyncDirectory(dir);
}

/** Makes a rename durable across power loss. Some platforms cannot open a directory; that is not an error. */
function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // Windows and some filesystems refuse; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** True when a process with this id exists on this machine (EPERM means it exists but is not ours). */
export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Deletes temp files of `file` left by processes that died mid-write. Call it only while holding the
 * file's lock, so no live writer's temp file is in flight.
 */
export function removeOrphanTempFiles(file: string): void {
  const dir = path.dirname(file);
  const prefix = `.${path.basename(file)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(".tmp")) continue;
    const pid = Number(name.slice(prefix.length).split(".")[0]);
    if (Number.isInteger(pid) && pid > 0 && !isProcessAlive(pid)) fs.rmSync(path.join(dir, name), { force: true });
  }
}
