/** The FeedbackStore on Postgres (migration 10, table `deerflow_feedback`). */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { type FeedbackStore, feedbackOf, NONE } from "./types.js";

type Row = Parameters<typeof feedbackOf>[0];

/** Creates the store over the harness's pool. */
export function createPostgresFeedbackStore(pool: pg.Pool): FeedbackStore {
  return {
    async upsert(owner, input) {
      const result = await pool.query<Row>(
        `INSERT INTO deerflow_feedback (feedback_id, thread_id, run_id, owner, message_id, rating, comment, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (run_id, owner, message_id) DO UPDATE SET rating = excluded.rating, comment = excluded.comment
         RETURNING *`,
        [
          randomUUID(),
          input.thread_id,
          input.run_id,
          owner ?? NONE,
          input.message_id ?? NONE,
          input.rating,
          input.comment,
          new Date().toISOString(),
        ],
      );
      return feedbackOf(result.rows[0]!);
    },
    async list(owner, threadId, runId) {
      const result = await pool.query<Row>(
        "SELECT * FROM deerflow_feedback WHERE thread_id = $1 AND run_id = $2 AND owner = $3 ORDER BY created_at, feedback_id",
        [threadId, runId, owner ?? NONE],
      );
      return result.rows.map(feedbackOf);
    },
    async deleteForRun(owner, threadId, runId) {
      const result = await pool.query(
        "DELETE FROM deerflow_feedback WHERE thread_id = $1 AND run_id = $2 AND owner = $3 AND message_id = $4",
        [threadId, runId, owner ?? NONE, NONE],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async delete(owner, threadId, runId, feedbackId) {
      const result = await pool.query(
        "DELETE FROM deerflow_feedback WHERE feedback_id = $1 AND thread_id = $2 AND run_id = $3 AND owner = $4",
        [feedbackId, threadId, runId, owner ?? NONE],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async deleteForThread(threadId) {
      await pool.query("DELETE FROM deerflow_feedback WHERE thread_id = $1", [threadId]);
    },
    close() {},
  };
}
