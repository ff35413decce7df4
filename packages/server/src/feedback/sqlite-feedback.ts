/** The FeedbackStore in the thread database's SQLite file (SQLite migration `feedback-1`). */
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { applySqliteMigrations, type SqliteMigration } from "../sqlite-migrations.js";
import { type FeedbackStore, feedbackOf, NONE } from "./types.js";

const MIGRATIONS: SqliteMigration[] = [
  {
    name: "feedback-1",
    sql: `
CREATE TABLE IF NOT EXISTS deerflow_feedback (
  feedback_id TEXT PRIMARY KEY,
  thread_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  owner TEXT NOT NULL,
  message_id TEXT NOT NULL,
  rating INTEGER NOT NULL,
  comment TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (run_id, owner, message_id)
);
CREATE INDEX IF NOT EXISTS deerflow_feedback_thread ON deerflow_feedback (thread_id, run_id);
`,
  },
];

type Row = Parameters<typeof feedbackOf>[0];

/** Opens the store in `file` (the thread database). */
export function openSqliteFeedbackStore(file: string): FeedbackStore {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  applySqliteMigrations(db, MIGRATIONS);
  return {
    async upsert(owner, input) {
      const row = db
        .prepare<unknown[], Row>(
          `INSERT INTO deerflow_feedback (feedback_id, thread_id, run_id, owner, message_id, rating, comment, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (run_id, owner, message_id) DO UPDATE SET rating = excluded.rating, comment = excluded.comment
           RETURNING *`,
        )
        .get(
          randomUUID(),
          input.thread_id,
          input.run_id,
          owner ?? NONE,
          input.message_id ?? NONE,
          input.rating,
          input.comment,
          new Date().toISOString(),
        )!;
      return feedbackOf(row);
    },
    async list(owner, threadId, runId) {
      return db
        .prepare<unknown[], Row>(
          "SELECT * FROM deerflow_feedback WHERE thread_id = ? AND run_id = ? AND owner = ? ORDER BY created_at, feedback_id",
        )
        .all(threadId, runId, owner ?? NONE)
        .map(feedbackOf);
    },
    async deleteForRun(owner, threadId, runId) {
      return (
        db
          .prepare("DELETE FROM deerflow_feedback WHERE thread_id = ? AND run_id = ? AND owner = ? AND message_id = ?")
          .run(threadId, runId, owner ?? NONE, NONE).changes > 0
      );
    },
    async delete(owner, threadId, runId, feedbackId) {
      return (
        db
          .prepare("DELETE FROM deerflow_feedback WHERE feedback_id = ? AND thread_id = ? AND run_id = ? AND owner = ?")
          .run(feedbackId, threadId, runId, owner ?? NONE).changes > 0
      );
    },
    async deleteForThread(threadId) {
      db.prepare("DELETE FROM deerflow_feedback WHERE thread_id = ?").run(threadId);
    },
    close() {
      db.close();
    },
  };
}
