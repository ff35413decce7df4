/**
 * The DeliveryStore on Postgres (migration 7): any process may send a delivery; a claim moves its next
 * attempt ahead under `FOR UPDATE SKIP LOCKED`, so two processes never send the same attempt.
 *
 * The deliverer looks for ready deliveries whenever the run queue wakes (every run queued or finished,
 * on every process). A claim also counts the deliveries still waiting; when there were none, later
 * claims answer "nothing" without a query until this process records one (`expect`) or a second has
 * passed since the last query (so one recorded by another process is sent within a second, and by that
 * process's own deliverer at once).
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { Delivery, DeliveryStore } from "./deliveries.js";

/** Claims query at least this often, even when no delivery was waiting (ms). */
const CLAIM_POLL_MS = 1000;

/** Creates the store over the harness's pool. */
export function createPostgresDeliveryStore(pool: pg.Pool): DeliveryStore {
  /** True while the last claim saw no waiting delivery and none was recorded here since. */
  let noneWaiting = false;
  let lastQuery = 0;
  let recorded = 0;
  return {
    async expect(runId, url) {
      recorded += 1;
      noneWaiting = false;
      await pool.query(
        "INSERT INTO deerflow_deliveries (delivery_id, run_id, url, created_at) VALUES ($1, $2, $3, $4)",
        [randomUUID(), runId, url, new Date().toISOString()],
      );
    },
    async forget(runId) {
      await pool.query("DELETE FROM deerflow_deliveries WHERE run_id = $1", [runId]);
    },
    async claimReady(leaseMs, limit) {
      if (noneWaiting && Date.now() - lastQuery < CLAIM_POLL_MS) return [];
      lastQuery = Date.now();
      const seen = recorded;
      const result = await pool.query<Delivery & { waiting: string; taken: boolean }>(
        `WITH ready AS (
           SELECT d.delivery_id, r.run_id IS NULL AS run_missing
           FROM deerflow_deliveries d LEFT JOIN server_runs r ON r.run_id = d.run_id
           WHERE d.status = 'waiting' AND d.next_attempt_at <= now()
             AND (d.body IS NOT NULL OR r.status NOT IN ('pending', 'running')
                  OR (r.run_id IS NULL AND d.created_at::timestamptz < now() - interval '1 minute'))
           ORDER BY d.next_attempt_at LIMIT $2 FOR UPDATE OF d SKIP LOCKED)
         , taken AS (
         UPDATE deerflow_deliveries d SET next_attempt_at = now() + make_interval(secs => $1)
         FROM ready WHERE d.delivery_id = ready.delivery_id
         RETURNING d.delivery_id, d.run_id, d.url, d.body, d.attempts, ready.run_missing)
         SELECT t.*, t.delivery_id IS NOT NULL AS taken,
           (SELECT count(*) FROM deerflow_deliveries WHERE status = 'waiting') AS waiting
         FROM (SELECT 1) one LEFT JOIN taken t ON true`,
        [leaseMs / 1000, limit],
      );
      noneWaiting = Number(result.rows[0]?.waiting ?? 1) === 0 && recorded === seen;
      return result.rows
        .filter((row) => row.taken)
        .map(({ waiting: _waiting, taken: _taken, ...delivery }) => delivery as Delivery);
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
