/**
 * The embedded checkpointer: every thread's state in one SQLite file (`{home}/checkpoints.sqlite`), so
 * threads survive process restarts and a `--thread` run continues where the last one stopped.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";

/** An open checkpoint store. Close it when the process is done with it. */
export interface CheckpointStore {
  saver: SqliteSaver;
  file: string;
  /** Thread ids with at least one checkpoint, most recently updated first. */
  listThreadIds(): string[];
  close(): void;
}

/**
 * Opens (creating if needed) the SQLite checkpoint file.
 *
 * @example
 * const store = openCheckpointStore(checkpointsPath(home));
 */
export function openCheckpointStore(file: string): CheckpointStore {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  const saver = new SqliteSaver(db);
  return {
    saver,
    file,
    listThreadIds() {
      const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'").get();
      if (!exists) return [];
      // Checkpoint ids are time-ordered (UUIDv6), so the largest id is the latest update.
      const rows = db
        .prepare("SELECT thread_id, MAX(checkpoint_id) AS latest FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id ORDER BY latest DESC")
        .all() as { thread_id: string }[];
      return rows.map((row) => row.thread_id);
    },
    close() {
      if (db.open) db.close();
    },
  };
}
