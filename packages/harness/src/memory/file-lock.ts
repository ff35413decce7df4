/**
 * A cross-process lock around read-modify-write updates of one file. Atomic renames alone keep the file
 * valid, but two processes (a `deerflow chat` and a `deerflow run`, or the CLI's `memory forget` during a
 * background update) that each read, change and write would silently drop one another's changes.
 *
 * The lock is a file created exclusively: its content (pid, host, token) is written to a temp file first
 * and hard-linked into place, so the lock never exists half-written. A lock whose process is dead (same
 * host) or that is older than `staleMs` is broken, so a process killed while holding it blocks nobody for
 * long. Holds are short (one read and one write, never a model call), so the lock is synchronous.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { HarnessError } from "../errors.js";
import { isProcessAlive, tempPathFor } from "./atomic-write.js";

/** How long to wait for a lock, and when a lock is old enough to be broken. */
export interface FileLockOptions {
  /** Give up after this long (default 10 000 ms), throwing `HarnessError` with code `memory_locked`. */
  timeoutMs?: number;
  /** A lock older than this is taken to be abandoned (default 30 000 ms). */
  staleMs?: number;
}

interface LockHolder {
  pid: number;
  host: string;
  token: string;
}

/** What is known about the current lock; `token` is undefined when its content is unreadable. */
interface LockInfo {
  pid: number;
  host: string;
  token: string | undefined;
  ageMs: number;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread for `ms` milliseconds (only used while waiting for a busy lock). */
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

function readToken(file: string): string | undefined {
  try {
    const token = (JSON.parse(fs.readFileSync(file, "utf8")) as Partial<LockHolder>).token;
    return typeof token === "string" ? token : undefined;
  } catch {
    return undefined;
  }
}

function readHolder(lockPath: string): LockInfo | undefined {
  let ageMs: number;
  try {
    ageMs = Date.now() - fs.statSync(lockPath).mtimeMs;
  } catch {
    return undefined; // released between the failed create and this read: just retry
  }
  try {
    const parsed = JSON.parse(fs.readFileSync(lockPath, "utf8")) as Partial<LockHolder>;
    return {
      pid: Number(parsed.pid),
      host: String(parsed.host),
      token: typeof parsed.token === "string" ? parsed.token : undefined,
      ageMs,
    };
  } catch {
    return { pid: Number.NaN, host: "", token: undefined, ageMs }; // not written by us: only age can free it
  }
}

function isStale(holder: LockInfo, staleMs: number): boolean {
  if (holder.ageMs > staleMs) return true;
  return holder.host === os.hostname() && Number.isInteger(holder.pid) && holder.pid > 0 && !isProcessAlive(holder.pid);
}

/**
 * Removes the lock only if it still carries `token`: it is renamed aside first, checked, and linked back
 * if it turned out to belong to someone else. Two breakers racing on one stale lock therefore cannot
 * delete the fresh lock that the faster one just took.
 */
function removeIfToken(lockPath: string, token: string | undefined): void {
  const aside = tempPathFor(lockPath);
  try {
    fs.renameSync(lockPath, aside);
  } catch {
    return; // already gone
  }
  if (readToken(aside) !== token) {
    try {
      fs.linkSync(aside, lockPath);
    } catch {
      // someone else took the lock meanwhile; nothing to restore into
    }
  }
  fs.rmSync(aside, { force: true });
}

function tryCreate(lockPath: string, holder: LockHolder): boolean {
  const temp = tempPathFor(lockPath);
  fs.writeFileSync(temp, JSON.stringify(holder), { mode: 0o600 });
  try {
    fs.linkSync(temp, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * Runs `fn` while holding the lock file `lockPath` (created next to the file it guards).
 * Throws `HarnessError("memory_locked")` when the lock stays busy past `timeoutMs`.
 *
 * @example
 * withFileLock(`${file}.lock`, () => writeFileAtomic(file, update(readFileSync(file, "utf8"))));
 */
export function withFileLock<T>(lockPath: string, fn: () => T, options: FileLockOptions = {}): T {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const me: LockHolder = { pid: process.pid, host: os.hostname(), token: randomUUID() };
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  while (!tryCreate(lockPath, me)) {
    const holder = readHolder(lockPath);
    if (holder && isStale(holder, staleMs)) {
      removeIfToken(lockPath, holder.token);
      continue;
    }
    if (Date.now() > deadline) {
      const who = holder ? `process ${holder.pid} on ${holder.host}` : "another process";
      throw new HarnessError(
        "memory_locked",
        `${lockPath} is held by ${who} for more than ${timeoutMs} ms. If no DeerFlow process is running, delete that lock file and retry.`,
      );
    }
    sleepSync(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
  }
  try {
    return fn();
  } finally {
    removeIfToken(lockPath, me.token);
  }
}
