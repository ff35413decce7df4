/**
 * The CronStore on Postgres (tables from the harness's migration 7), shared by every process on the
 * database. A claim is one `UPDATE ... WHERE cron_id IN (SELECT ... FOR UPDATE SKIP LOCKED)`: processes
 * never wait on each other, and a due cron goes to exactly one of them until it releases it (with its
 * next due time) or its lease lapses because it died mid-firing. Due times compare with the database's
 * clock, so processes with drifting clocks still agree on what is due.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { CRON_COLUMNS, type CronRow, cronFromRow, sortColumn } from "./cron-rows.js";
import type { CronQuery, CronStore } from "./types.js";

const toCron = (row: CronRow) => cronFromRow(row, (value) => value);
const SELECT = `SELECT ${CRON_COLUMNS.join(", ")} FROM deerflow_crons`;

/** WHERE clause and parameters of a search or count. */
function where(query: Omit<CronQuery, "limit" | "offset" | "sort_by" | "sort_order">): [string, unknown[]] {
  const params: unknown[] = [query.owner];
  const clauses = ["owner IS NOT DISTINCT FROM $1"];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    clauses.push(clause.replace("?", `$${params.length}`));
  };
  if (query.assistant_id !== undefined) add("assistant_id = ?", query.assistant_id);
  if (query.thread_id !== undefined) add("thread_id = ?", query.thread_id);
  if (query.enabled !== undefined) add("enabled = ?", query.enabled);
  if (query.metadata !== undefined) add("metadata @> ?::jsonb", JSON.stringify(query.metadata));
  return [clauses.join(" AND "), params];
}

/** Creates the store over the harness's pool. */
export function createPostgresCronStore(pool: pg.Pool): CronStore {
  return {
    async create(cron) {
      const values = CRON_COLUMNS.map((column) =>
        column === "payload" || column === "metadata" || column === "deliver_to"
          ? JSON.stringify(cron[column])
          : cron[column],
      );
      await pool.query(
        `INSERT INTO deerflow_crons (${CRON_COLUMNS.join(", ")}) VALUES (${CRON_COLUMNS.map((_, i) => `$${i + 1}`).join(", ")})`,
        values,
      );
    },
    async get(cronId, owner) {
      const result = await pool.query<CronRow>(`${SELECT} WHERE cron_id = $1 AND owner IS NOT DISTINCT FROM $2`, [
        cronId,
        owner,
      ]);
      return result.rows[0] ? toCron(result.rows[0]) : null;
    },
    async search(query) {
      const [clause, params] = where(query);
      const order = `${sortColumn(query.sort_by)} ${query.sort_order === "asc" ? "ASC" : "DESC"} NULLS LAST, cron_id`;
      const result = await pool.query<CronRow>(
        `${SELECT} WHERE ${clause} ORDER BY ${order} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, query.limit, query.offset],
      );
      return result.rows.map(toCron);
    },
    async count(query) {
      const [clause, params] = where(query);
      const result = await pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM deerflow_crons WHERE ${clause}`,
        params,
      );
      return Number(result.rows[0]?.n ?? 0);
    },
    async update(cronId, owner, patch) {
      const current = await this.get(cronId, owner);
      if (!current) return null;
      const next = { ...current, ...patch, updated_at: new Date().toISOString() };
      await pool.query(
        "UPDATE deerflow_crons SET schedule = $1, timezone = $2, end_time = $3, payload = $4, metadata = $5, enabled = $6, on_run_completed = $7, catch_up = $8, next_run_at = $9, updated_at = $10, thread_id = $13, run_at = $14, deliver_to = $15, last_run_id = $16, last_run_at = $17 WHERE cron_id = $11 AND owner IS NOT DISTINCT FROM $12",
        [
          next.schedule,
          next.timezone,
          next.end_time,
          JSON.stringify(next.payload),
          JSON.stringify(next.metadata),
          next.enabled,
          next.on_run_completed,
          next.catch_up,
          next.next_run_at,
          next.updated_at,
          cronId,
          owner,
          next.thread_id,
          next.run_at,
          JSON.stringify(next.deliver_to),
          next.last_run_id,
          next.last_run_at,
        ],
      );
      return next;
    },
    async delete(cronId, owner) {
      const result = await pool.query(
        "DELETE FROM deerflow_crons WHERE cron_id = $1 AND owner IS NOT DISTINCT FROM $2",
        [cronId, owner],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async deleteForThread(threadId) {
      await pool.query("DELETE FROM deerflow_crons WHERE thread_id = $1", [threadId]);
    },
    async deleteForOwner(owner) {
      await pool.query("DELETE FROM deerflow_crons WHERE owner = $1", [owner]);
    },
    async claimDue(leaseMs, limit) {
      const token = randomUUID();
      const result = await pool.query<CronRow>(
        `UPDATE deerflow_crons SET claim_token = $1, claim_expires = now() + make_interval(secs => $2)
         WHERE cron_id IN (
           SELECT cron_id FROM deerflow_crons
           WHERE enabled AND next_run_at <= now() AND (claim_expires IS NULL OR claim_expires < now())
           ORDER BY next_run_at LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING ${CRON_COLUMNS.join(", ")}`,
        [token, leaseMs / 1000, limit],
      );
      return result.rows.map((row) => ({ cron: toCron(row), token }));
    },
    async release(claim, outcome) {
      const at = new Date().toISOString();
      const skipped = outcome.skipped ?? 0;
      await pool.query(
        `UPDATE deerflow_crons SET next_run_at = $1, last_run_id = coalesce($2, last_run_id), last_run_at = coalesce($3, last_run_at),
           skipped = skipped + $4, last_skipped_at = CASE WHEN $4 > 0 THEN $5 ELSE last_skipped_at END,
           last_error = $6, updated_at = $5, claim_token = NULL, claim_expires = NULL
         WHERE cron_id = $7 AND claim_token = $8`,
        [
          outcome.next_run_at,
          outcome.last_run_id ?? null,
          outcome.last_run_at ?? null,
          skipped,
          at,
          outcome.last_error ?? null,
          claim.cron.cron_id,
          claim.token,
        ],
      );
    },
    async nextDue() {
      const result = await pool.query<{ at: Date | null }>(
        "SELECT min(greatest(next_run_at, claim_expires)) AS at FROM deerflow_crons WHERE enabled AND next_run_at IS NOT NULL",
      );
      return result.rows[0]?.at?.toISOString() ?? null;
    },
    async countActive() {
      const result = await pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM deerflow_crons WHERE enabled AND next_run_at IS NOT NULL",
      );
      return Number(result.rows[0]?.n ?? 0);
    },
    close() {},
  };
}
