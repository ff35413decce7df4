/**
 * The one place that reads and writes a memory file. Everything else (updater, CLI, prompt injection)
 * goes through it, so the guarantees hold everywhere:
 * - reads are validated; one malformed fact or summary is skipped with a warning (and dropped at the
 *   next write); a file that is not JSON or not a memory document is moved aside to
 *   `memory.json.corrupt-<timestamp>` with a warning and the run continues with empty memory;
 * - writes are atomic (temp file, fsync, rename), so a killed process never leaves a truncated file;
 * - read-modify-write updates hold a lock file, so two processes do not lose each other's changes;
 * - reads are cached and the cache is dropped on every write and whenever the file on disk changed
 *   (inode, size or mtime differ), so another process's write is seen on the next `load()`.
 */
import fs from "node:fs";
import { HarnessError } from "../errors.js";
import { removeOrphanTempFiles, writeFileAtomic } from "./atomic-write.js";
import { type FileLockOptions, withFileLock } from "./file-lock.js";
import { Memory, emptyMemory, parseMemoryText, parseStoredMemory } from "./memory-schema.js";

/** Options of `createMemoryStore`. */
export interface MemoryStoreOptions {
  /** Receives problems that were handled (corrupt file moved aside, lock busy while reading). */
  onWarning?: (message: string) => void;
  /** Lock timing; the defaults suit interactive use. */
  lock?: FileLockOptions;
}

/** Reads and writes one memory file. All methods are synchronous and safe across processes. */
export interface MemoryStore {
  /** The memory file this store manages. */
  readonly path: string;
  /** Current memory (a fresh copy); empty when the file does not exist or was corrupt. */
  load(): Memory;
  /** Replaces the whole memory (validated first). */
  save(memory: Memory): void;
  /**
   * Applies `change` to the latest memory on disk under the lock and writes the result; returns it.
   * When `change` returns the very object it was given, nothing is written.
   */
  update(change: (memory: Memory) => Memory): Memory;
  /** Empties the memory. */
  clear(): void;
  /** Removes the fact with this id; false when there was none. */
  forgetFact(id: string): boolean;
  /** Writes the current memory as JSON to `file` (atomically). */
  exportTo(file: string): void;
  /** Replaces the memory with a validated file; throws `HarnessError("memory_invalid")` and changes nothing when it is not a memory document. */
  importFrom(file: string): Memory;
}

type ReadResult = { ok: true; memory: Memory } | { ok: false; reason: string };

/** JSON text of a memory document as it is stored and exported. */
export function serializeMemory(memory: Memory): string {
  return `${JSON.stringify(memory, null, 2)}\n`;
}

/** `2026-05-01T10-20-30-123Z`: an ISO time usable in a file name on every platform. */
function fileTimestamp(): string {
  return new Date().toISOString().replace(/[:.]/g, "-");
}

/**
 * Creates a store for the memory file at `path` (see `memoryPath`). Nothing is read or created until used.
 *
 * @example
 * const store = createMemoryStore(memoryPath(home), { onWarning: console.warn });
 * store.update((memory) => ({ ...memory, facts: [] }));
 */
export function createMemoryStore(path: string, options: MemoryStoreOptions = {}): MemoryStore {
  const lockPath = `${path}.lock`;
  const warn = options.onWarning ?? (() => {});
  let cache: { key: string; memory: Memory } | undefined;

  const locked = <T>(fn: () => T): T => withFileLock(lockPath, fn, options.lock);

  /** Reads the file through one descriptor, so the stat used as cache key matches the bytes read. */
  function readCurrent(): ReadResult {
    let fd: number;
    try {
      fd = fs.openSync(path, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ok: true, memory: emptyMemory() };
      throw error;
    }
    try {
      const stat = fs.fstatSync(fd);
      const key = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
      if (cache?.key === key) return { ok: true, memory: structuredClone(cache.memory) };
      const parsed = parseStoredMemory(fs.readFileSync(fd, "utf8"));
      if (!parsed.ok) return parsed;
      if (parsed.skipped.length > 0) {
        warn(
          `Memory file ${path}: skipped what does not fit the memory format (${parsed.skipped.join("; ")}). The rest is used; the next memory update rewrites the file without it.`,
        );
      }
      cache = { key, memory: parsed.memory };
      return { ok: true, memory: structuredClone(parsed.memory) };
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Must run under the lock: a second look, then the corrupt file is moved aside. */
  function readOrQuarantine(): Memory {
    const result = readCurrent();
    if (result.ok) return result.memory;
    let backup = `${path}.corrupt-${fileTimestamp()}`;
    for (let n = 1; fs.existsSync(backup); n += 1) backup = `${path}.corrupt-${fileTimestamp()}-${n}`;
    fs.renameSync(path, backup);
    cache = undefined;
    warn(`Memory file ${path} is ${result.reason}. It was moved to ${backup}; continuing with empty memory.`);
    return emptyMemory();
  }

  function write(memory: Memory): void {
    removeOrphanTempFiles(path);
    removeOrphanTempFiles(lockPath);
    cache = undefined;
    writeFileAtomic(path, serializeMemory(memory));
  }

  function load(): Memory {
    const result = readCurrent();
    if (result.ok) return result.memory;
    try {
      return locked(readOrQuarantine);
    } catch (error) {
      warn(
        `Memory file ${path} is ${result.reason}, and it could not be moved aside (${(error as Error).message}). Using empty memory.`,
      );
      return emptyMemory();
    }
  }

  function save(memory: Memory): void {
    const valid = Memory.parse(memory);
    locked(() => write(valid));
  }

  function update(change: (memory: Memory) => Memory): Memory {
    return locked(() => {
      const current = readOrQuarantine();
      const changed = change(current);
      if (changed === current) return current;
      const next = Memory.parse(changed);
      write(next);
      return next;
    });
  }

  function clear(): void {
    locked(() => write({ ...emptyMemory(), lastUpdated: new Date().toISOString() }));
  }

  function forgetFact(id: string): boolean {
    return locked(() => {
      const memory = readOrQuarantine();
      const facts = memory.facts.filter((fact) => fact.id !== id);
      if (facts.length === memory.facts.length) return false;
      write({ ...memory, facts, lastUpdated: new Date().toISOString() });
      return true;
    });
  }

  function exportTo(file: string): void {
    writeFileAtomic(file, serializeMemory(load()));
  }

  function importFrom(file: string): Memory {
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (error) {
      throw new HarnessError(
        "memory_invalid",
        `Cannot read ${file} (${(error as Error).message}). The current memory was left unchanged.`,
        { cause: error },
      );
    }
    const parsed = parseMemoryText(text);
    if (!parsed.ok) {
      throw new HarnessError("memory_invalid", `${file} is ${parsed.reason}. The current memory was left unchanged.`);
    }
    save(parsed.memory);
    return parsed.memory;
  }

  return { path, load, save, update, clear, forgetFact, exportTo, importFrom };
}
