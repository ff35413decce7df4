/**
 * The embedded checkpointer: every thread's state in one SQLite file (`{home}/checkpoints.sqlite`), so
 * threads survive process restarts and a `--thread` run continues where the last one stopped.
 *
 * A file that is not a database (corrupt, truncated, something else) or cannot be written (read-only
 * home, wrong owner) fails with a message naming the file and what to do. Listing and reading threads
 * also work on a read-only home (`readOnly`): SQLite cannot open a WAL database on read-only media or in
 * a directory the user cannot write (it must create the `-shm` file beside it), so a snapshot of the file,
 * with what its `-wal` file still holds, is read instead.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { HarnessError } from "../errors.js";
import { createLargeValueSerde } from "./large-values.js";
import { PreparedSqliteSaver } from "./sqlite-saver.js";

/** An open checkpoint store. Close it when the process is done with it. */
export interface CheckpointStore {
  saver: SqliteSaver;
  file: string;
  /** The open database (the history archive reads through it in read-only mode). */
  db: Database.Database;
  readOnly: boolean;
  /** Thread ids with at least one checkpoint, most recently updated first (the newest `limit` if given). */
  listThreadIds(limit?: number): string[];
  /** Deletes every checkpoint of a thread; false when it had none. */
  deleteThread(threadId: string): Promise<boolean>;
  close(): void;
}

/** Options of {@link openCheckpointStore}. */
export interface CheckpointStoreOptions {
  /** Never write: no directory, no table, no WAL switch. A missing file reads as no threads. */
  readOnly?: boolean;
}

/**
 * Opens (creating if needed) the SQLite checkpoint file.
 *
 * @example
 * const store = openCheckpointStore(checkpointsPath(home));
 * const reader = openCheckpointStore(checkpointsPath(home), { readOnly: true });
 */
export function openCheckpointStore(file: string, options: CheckpointStoreOptions = {}): CheckpointStore {
  const readOnly = options.readOnly ?? false;
  const db = readOnly ? openReadOnly(file) : openWritable(file);
  // Long strings (big tool results and arguments, pasted documents) are stored once, not in every checkpoint.
  const saver = new PreparedSqliteSaver(db, createLargeValueSerde(db));
  const hasCheckpoints = () =>
    Boolean(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'").get());
  return {
    saver,
    file,
    db,
    readOnly,
    listThreadIds(limit) {
      if (!hasCheckpoints()) return [];
      // Checkpoint ids are time-ordered (UUIDv6), so the largest id is the latest update.
      const rows = db
        .prepare(
          `SELECT thread_id, MAX(checkpoint_id) AS latest FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id ORDER BY latest DESC${limit ? " LIMIT ?" : ""}`,
        )
        .all(...(limit ? [limit] : [])) as { thread_id: string }[];
      return rows.map((row) => row.thread_id);
    },
    async deleteThread(threadId) {
      if (!hasCheckpoints()) return false;
      const found = db.prepare("SELECT 1 FROM checkpoints WHERE thread_id = ? LIMIT 1").get(threadId);
      if (!found) return false;
      await saver.deleteThread(threadId);
      return true;
    },
    close() {
      if (db.open) db.close();
    },
  };
}

function openWritable(file: string): Database.Database {
  let db: Database.Database | undefined;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    db = new Database(file);
    // Only takes effect on a new file: lets retention hand freed pages back (`deerflow threads prune` converts old files).
    db.pragma("auto_vacuum = INCREMENTAL");
    db.pragma("journal_mode = WAL");
    // WAL with NORMAL sync: a commit is not fsynced, the WAL is at each checkpoint of it. A killed process
    // loses nothing (crash-resume unchanged); a power loss or OS crash may lose the last steps, never the
    // file's consistency. FULL cost one fsync per graph step, most of a step's time on this disk.
    db.pragma("synchronous = NORMAL");
    db.pragma("busy_timeout = 5000");
    db.prepare("SELECT count(*) FROM sqlite_master").get();
    return db;
  } catch (error) {
    db?.close();
    throw storageError(file, error);
  }
}

function openReadOnly(file: string): Database.Database {
  if (!existsSync(file)) return new Database(":memory:");
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.prepare("SELECT count(*) FROM sqlite_master").get();
      return db;
    } catch (error) {
      db.close();
      if (!cannotReadInPlace(error)) throw error;
    }
    return openSnapshot(file);
  } catch (error) {
    throw storageError(file, error);
  }
}

/**
 * A WAL database that SQLite cannot read where it is: on read-only media (`SQLITE_CANTOPEN`), or in a
 * directory the user cannot write, where the shared-memory file cannot be created
 * (`SQLITE_READONLY_DIRECTORY`, `SQLITE_READONLY_CANTINIT`, ...).
 */
function cannotReadInPlace(error: unknown): boolean {
  const code = String((error as { code?: unknown }).code ?? "");
  return code === "SQLITE_CANTOPEN" || code.startsWith("SQLITE_READONLY");
}

/**
 * An in-memory copy of the database, marked as a rollback-journal database (header bytes 18-19). Steps
 * still in the `-wal` file (a run was killed, or another user's process is writing) are folded in first
 * from a private copy in the temp directory, so the copy shows every committed checkpoint.
 */
function openSnapshot(file: string): Database.Database {
  let bytes: Buffer = readFileSync(file);
  const wal = `${file}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) {
    const dir = mkdtempSync(path.join(tmpdir(), "deerflow-snapshot-"));
    try {
      const copy = path.join(dir, "checkpoints.sqlite");
      writeFileSync(copy, bytes);
      copyFileSync(wal, `${copy}-wal`);
      const merged = new Database(copy);
      try {
        merged.pragma("wal_checkpoint(TRUNCATE)");
        bytes = merged.serialize();
      } finally {
        merged.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (bytes.length >= 20) bytes[18] = bytes[19] = 1;
  const snapshot = new Database(bytes);
  snapshot.prepare("SELECT count(*) FROM sqlite_master").get();
  return snapshot;
}

/** Turns SQLite's and the file system's errors into what happened to which file and what to do. */
export function storageError(file: string, error: unknown): HarnessError {
  const code = String((error as { code?: unknown }).code ?? "");
  const reason = (error as Error).message?.split("\n")[0] ?? String(error);
  if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT" || /not a database|malformed/.test(reason)) {
    return new HarnessError(
      "storage_unusable",
      `${file} is not a usable thread database (${reason}). Move it aside to start with no saved threads (mv "${file}" "${file}.bad"), or restore it from a backup.`,
      { cause: error },
    );
  }
  if (code === "SQLITE_FULL" || code === "ENOSPC") {
    return new HarnessError(
      "storage_unusable",
      `The disk is full: ${file} cannot be written (${reason}). Free some space and run again.`,
      { cause: error },
    );
  }
  if (/^SQLITE_(CANTOPEN|READONLY|PERM|AUTH)/.test(code) || ["EACCES", "EPERM", "EROFS"].includes(code)) {
    return new HarnessError(
      "storage_unusable",
      `Cannot open ${file} for writing (${reason}): its directory is read-only or not yours. Make ${path.dirname(file)} writable, or set DEER_FLOW_HOME to a writable directory. (deerflow threads and history also work on a read-only home.)`,
      { cause: error },
    );
  }
  return new HarnessError("storage_unusable", `Cannot use ${file} (${reason}).`, { cause: error });
}
