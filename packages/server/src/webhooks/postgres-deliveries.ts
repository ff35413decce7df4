/**
 * The DeliveryStore on Postgres (migration 7): any process may send a delivery; a claim moves its next
 * attempt ahead under `FOR UPDATE SKIP LOCKED`, so two processes never send the same attempt.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { Delivery, DeliveryStore } from "./deliveries.js";

/** Creates the store over the harness's pool. */
export function createPostgresDeliveryStore(pool: pg.Pool): DeliveryStore {
  return {
    async expect(runId, url) {
      await pool.query(
        "INSERT INTO deerflow_deliveries (delivery_id, run_id, url, created_at) VALUES ($1, $2, $3, $4)",
        [randomUUID(), runId, url, new Date().toISOString()],
      );
    },
    async forget(runId) {
      await pool.query("DELETE FROM deerflow_deliveries WHERE run_id = $1", [runId]);
    },
    async claimReady(leaseMs, limit) {
      const result = await pool.query<Delivery>(
        `WITH ready AS (
           SELECT d.delivery_id, r.run_id IS NULL AS run_missing
           FROM deerflow_deliveries d LEFT JOIN server_runs r ON r.run_id = d.run_id
           WHERE d.status = 'waiting' AND d.next_attempt_at <= now()
             AND (d.body IS NOT NULL OR r.status NOT IN ('pending', 'running')
                  OR (r.run_id IS NULL AND d.created_at::timestamptz < now() - interval '1 minute'))
           ORDER BY d.next_attempt_at LIMIT $2 FOR UPDATE OF d SKIP LOCKED)
         UPDATE deerflow_deliveries d SET next_attempt_at = now() + make_interval(secs => $1)
         FROM ready WHERE d.delivery_id = ready.delivery_id
         RETURNING d.delivery_id, d.run_id, d.url, d.body, d.attempts, ready.run_missing`,
        [leaseMs / 1000, limit],
      );
      return result.rows;
    },
    async update(deliveryId, update) {
      await pool.query(
        "UPDATE deerflow_deliveries SET body = $1, attempts = $2, status = $3, next_attempt_at = $4, last_error = $5 WHERE delivery_id = $6",
        [update.body, update.attempts, update.status, update.next_attempt_at, update.last_error, deliveryId],
      );
    },
    async ofRun(runId) {
      const result = await pool.query<{ status: string; attempts: number; last_error: string | null }>(
        "SELECT status, attempts, last_error FROM deerflow_deliveries WHERE run_id = $1 ORDER BY created_at",
        [runId],
      );
      return result.rows;
    },
    close() {},
  };
}
