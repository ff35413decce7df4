/** The DeliveryStore in the thread database's SQLite file, beside `server_runs` (one process). */
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { applySqliteMigrations, type SqliteMigration } from "../sqlite-migrations.js";
import type { Delivery, DeliveryStore } from "./deliveries.js";

const MIGRATIONS: SqliteMigration[] = [
  {
    name: "deliveries-1",
    sql: `
CREATE TABLE IF NOT EXISTS deerflow_deliveries (
  delivery_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  url TEXT NOT NULL,
  body TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'waiting',
  last_error TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS deerflow_deliveries_open ON deerflow_deliveries (next_attempt_at) WHERE status = 'waiting';
`,
  },
];

/** How long a delivery may wait for its run's record to appear (it is written just before the run). */
const MISSING_RUN_GRACE_MS = 60_000;

/** Opens the store in `file` (the thread database, which holds `server_runs`). */
export function openSqliteDeliveryStore(file: string): DeliveryStore {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  applySqliteMigrations(db, MIGRATIONS);
  return {
    async expect(runId, url) {
      const at = new Date().toISOString();
      db.prepare(
        "INSERT INTO deerflow_deliveries (delivery_id, run_id, url, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?)",
      ).run(randomUUID(), runId, url, at, at);
    },
    async forget(runId) {
      db.prepare("DELETE FROM deerflow_deliveries WHERE run_id = ?").run(runId);
    },
    async claimReady(leaseMs, limit) {
      return db.transaction(() => {
        const now = new Date();
        const rows = db
          .prepare<[string, string, number], Omit<Delivery, "run_missing"> & { run_missing: number }>(
            `SELECT d.delivery_id, d.run_id, d.url, d.body, d.attempts, r.run_id IS NULL AS run_missing
             FROM deerflow_deliveries d LEFT JOIN server_runs r ON r.run_id = d.run_id
             WHERE d.status = 'waiting' AND d.next_attempt_at <= ?
               AND (d.body IS NOT NULL OR r.status NOT IN ('pending', 'running') OR (r.run_id IS NULL AND d.created_at < ?))
             ORDER BY d.next_attempt_at LIMIT ?`,
          )
          .all(now.toISOString(), new Date(now.getTime() - MISSING_RUN_GRACE_MS).toISOString(), limit);
        const lease = new Date(now.getTime() + leaseMs).toISOString();
        for (const row of rows)
          db.prepare("UPDATE deerflow_deliveries SET next_attempt_at = ? WHERE delivery_id = ?").run(
            lease,
            row.delivery_id,
          );
        return rows.map((row) => ({ ...row, run_missing: Boolean(row.run_missing) }));
      })();
    },
    async update(deliveryId, update) {
      db.prepare(
        "UPDATE deerflow_deliveries SET body = ?, attempts = ?, status = ?, next_attempt_at = ?, last_error = ? WHERE delivery_id = ?",
      ).run(update.body, update.attempts, update.status, update.next_attempt_at, update.last_error, deliveryId);
    },
    async ofRun(runId) {
      return db
        .prepare<[string], { status: string; attempts: number; last_error: string | null }>(
          "SELECT status, attempts, last_error FROM deerflow_deliveries WHERE run_id = ? ORDER BY created_at",
        )
        .all(runId);
    },
    close() {
      db.close();
    },
  };
}
