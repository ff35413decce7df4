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
/** Claims query at least this often, even when no delivery was waiting (ms). */
const CLAIM_POLL_MS = 1000;

/**
 * Opens the store in `file` (the thread database, which holds `server_runs`).
 *
 * The deliverer looks for ready deliveries whenever the run queue wakes (every run queued or finished). A
 * claim also counts the deliveries still waiting; when there were none, later claims answer "nothing"
 * without a query until `expect` records one or a second has passed since the last query (as the
 * Postgres store does), so a server without webhooks does not read the table twice per run.
 */
export function openSqliteDeliveryStore(file: string): DeliveryStore {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  applySqliteMigrations(db, MIGRATIONS);
  const insert = db.prepare(
    "INSERT INTO deerflow_deliveries (delivery_id, run_id, url, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  const ready = db.prepare<[string, string, number], Omit<Delivery, "run_missing"> & { run_missing: number }>(
    `SELECT d.delivery_id, d.run_id, d.url, d.body, d.attempts, r.run_id IS NULL AS run_missing
     FROM deerflow_deliveries d LEFT JOIN server_runs r ON r.run_id = d.run_id
     WHERE d.status = 'waiting' AND d.next_attempt_at <= ?
       AND (d.body IS NOT NULL OR r.status NOT IN ('pending', 'running') OR (r.run_id IS NULL AND d.created_at < ?))
     ORDER BY d.next_attempt_at LIMIT ?`,
  );
  const anyWaiting = db.prepare("SELECT 1 FROM deerflow_deliveries WHERE status = 'waiting' LIMIT 1").pluck();
  const lease = db.prepare("UPDATE deerflow_deliveries SET next_attempt_at = ? WHERE delivery_id = ?");
  const claim = db.transaction((leaseMs: number, limit: number) => {
    const now = new Date();
    const rows = ready.all(now.toISOString(), new Date(now.getTime() - MISSING_RUN_GRACE_MS).toISOString(), limit);
    const until = new Date(now.getTime() + leaseMs).toISOString();
    for (const row of rows) lease.run(until, row.delivery_id);
    return { rows, waiting: rows.length > 0 || anyWaiting.get() !== undefined };
  });
  /** True while the last claim saw no waiting delivery and none was recorded since. */
  let noneWaiting = false;
  let lastQuery = 0;
  return {
    async expect(runId, url) {
      noneWaiting = false;
      const at = new Date().toISOString();
      insert.run(randomUUID(), runId, url, at, at);
    },
    async forget(runId) {
      db.prepare("DELETE FROM deerflow_deliveries WHERE run_id = ?").run(runId);
    },
    async claimReady(leaseMs, limit) {
      if (noneWaiting && Date.now() - lastQuery < CLAIM_POLL_MS) return [];
      lastQuery = Date.now();
      const { rows, waiting } = claim(leaseMs, limit);
      noneWaiting = !waiting;
      return rows.map((row) => ({ ...row, run_missing: Boolean(row.run_missing) }));
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
