/**
 * Opens the memory file that a config and agent name point at, without a model: what the CLI's
 * `deerflow memory` commands (and the server's memory routes) need. It uses the same storage rule as
 * the memory service.
 *
 * The file lives in a directory the user can break by hand: `memory.json` may be a directory, the home
 * may be read-only or another user's, a part of the path may be a file. Node reports those as a bare
 * `EISDIR: illegal operation on a directory, read`, naming neither the file nor the fix, so every
 * store method here turns a file-system error into a `storage_unusable` error that says which file,
 * what is wrong with it and what to do.
 */
import path from "node:path";
import type { AppConfig } from "../config/schema.js";
import { HarnessError } from "../errors.js";
import { memoryPath, memoryRoot } from "./memory-path.js";
import { createMemoryStore, type MemoryStore } from "./memory-store.js";

/**
 * The memory store of `agentName` (or the default agent) of `userId` (or the local user) under the
 * config's storage root. A user id that is not 1 to 64 letters, digits, "-" or "_" throws `ConfigError`.
 */
export function openMemoryStore(
  config: AppConfig,
  options: { home: string; agentName?: string; userId?: string; onWarning?: (message: string) => void },
): MemoryStore {
  const root = memoryRoot(options.home, config.memory.storage_path);
  const store = createMemoryStore(memoryPath(root, options.agentName, options.userId), {
    onWarning: options.onWarning,
  });
  const setting = config.memory.storage_path ? "memory.storage_path in config.yaml" : "DEER_FLOW_HOME";
  const guard =
    <A extends unknown[], R>(method: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return method(...args);
      } catch (error) {
        throw memoryFileError(store.path, error, setting) ?? error;
      }
    };
  return {
    path: store.path,
    load: guard(store.load),
    save: guard(store.save),
    update: guard(store.update),
    clear: guard(store.clear),
    forgetFact: guard(store.forgetFact),
    exportTo: guard(store.exportTo),
    importFrom: guard(store.importFrom),
  };
}

/** What node's fs errors carry. */
interface FsError {
  code?: unknown;
  path?: unknown;
  dest?: unknown;
  syscall?: unknown;
  message?: unknown;
}

/** Syscalls that read the memory file itself (it is only ever opened for reading; writes go to a temp file). */
const READING = new Set(["open", "read", "stat", "lstat", "fstat", "access"]);

/**
 * The error a user can act on for a file-system failure around the memory file `memoryFile`, or
 * `undefined` when `error` is not a file-system error (validation failures, a busy lock, an HTTP error
 * thrown from an update callback pass through unchanged). `setting` names where the storage directory
 * comes from (`DEER_FLOW_HOME`, or `memory.storage_path in config.yaml`).
 *
 * @example
 * memoryFileError("/h/memory.json", Object.assign(new Error("EISDIR"), { code: "EISDIR" }), "DEER_FLOW_HOME")?.message;
 * // 'Memory file /h/memory.json is a directory, not a file. Move it aside (mv "/h/memory.json" "/h/memory.json.bak"); memory then starts empty.'
 */
export function memoryFileError(memoryFile: string, error: unknown, setting: string): HarnessError | undefined {
  const fsError = (error ?? {}) as FsError;
  const code = typeof fsError.code === "string" ? fsError.code : "";
  if (!/^E[A-Z]+$/.test(code)) return undefined;
  const named = typeof fsError.dest === "string" ? fsError.dest : typeof fsError.path === "string" ? fsError.path : "";
  // A temp file (`.name.pid.random.tmp`, see atomic-write.ts) stands for writing the file it replaces; the
  // lock file and a corrupt file's backup stand for writing beside the memory file.
  const temp = /^\.(.+)\.\d+\.[0-9a-f]+\.tmp$/.exec(path.basename(named));
  const real = temp ? path.join(path.dirname(named), temp[1]!) : named;
  const helper = temp !== null || real.startsWith(`${memoryFile}.`);
  const target = real === "" || real.startsWith(`${memoryFile}.`) ? memoryFile : real;
  const isMemory = target === memoryFile;
  const label = isMemory ? `the memory file ${target}` : target;
  const lead = isMemory ? `Memory file ${target}` : target;
  const dir = path.dirname(target);
  const writing = helper || !isMemory || !READING.has(String(fsError.syscall));
  const make = (message: string) => new HarnessError("storage_unusable", message, { cause: error });
  switch (code) {
    case "EISDIR":
      return make(
        isMemory
          ? `${lead} is a directory, not a file. Move it aside (mv "${target}" "${target}.bak"); memory then starts empty.`
          : `${lead} is a directory. Give a file name instead, e.g. ${path.join(target, "memory.json")}.`,
      );
    case "ENOTDIR":
      return make(
        `Cannot reach ${label}: a part of its path is a file, not a directory. Move that file aside, or point ${setting} at a directory.`,
      );
    case "ELOOP":
      return make(`${lead} is a symlink that leads back to itself. Remove it (rm "${target}") and run again.`);
    case "EROFS":
      return make(
        `Cannot write ${target}: ${dir} is on a read-only file system. Reading memory still works; to change it, make ${dir} writable or set ${setting} to a writable directory.`,
      );
    case "EACCES":
    case "EPERM":
      return make(
        writing
          ? `Cannot write ${target} (${code}): ${dir} is read-only or not yours. Make ${dir} writable by you, or set ${setting} to a directory you own.`
          : `Cannot read ${label} (${code}): it is not readable by you. Make it readable (chmod u+r "${target}"), or set ${setting} to a directory you own.`,
      );
    default: {
      const reason = typeof fsError.message === "string" ? fsError.message.split("\n")[0] : code;
      return make(`Cannot use ${label} (${reason}).`);
    }
  }
}
