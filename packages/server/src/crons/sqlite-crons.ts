/**
 * The CronStore in the thread database's SQLite file (one file, one backup). One process owns a SQLite
 * home, so a claim is a plain transaction; the lease still matters there, since a claim left by a
 * process that was killed mid-firing must lapse so the next start handles that due time.
 */
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { contains } from "../runs/sqlite-store.js";
import { applySqliteMigrations, type SqliteMigration } from "../sqlite-migrations.js";
import { CRON_COLUMNS, type CronRow, cronFromRow, sortColumn } from "./cron-rows.js";
import type { CronQuery, CronRecord, CronStore } from "./types.js";

const MIGRATIONS: SqliteMigration[] = [
  {
    name: "crons-1",
    sql: `
CREATE TABLE IF NOT EXISTS deerflow_crons (
  cron_id TEXT PRIMARY KEY,
  assistant_id TEXT NOT NULL,
  thread_id TEXT,
  schedule TEXT NOT NULL,
  timezone TEXT NOT NULL,
  end_time TEXT,
  payload TEXT NOT NULL,
  metadata TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  on_run_completed TEXT NOT NULL,
  catch_up TEXT NOT NULL,
  owner TEXT,
  next_run_at TEXT,
  last_run_id TEXT,
  last_run_at TEXT,
  skipped INTEGER NOT NULL DEFAULT 0,
  last_skipped_at TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  claim_token TEXT,
  claim_expires TEXT
);
CREATE INDEX IF NOT EXISTS deerflow_crons_owner ON deerflow_crons (owner);
CREATE INDEX IF NOT EXISTS deerflow_crons_due ON deerflow_crons (next_run_at) WHERE enabled = 1;
`,
  },
  {
    name: "crons-2",
    sql: `
ALTER TABLE deerflow_crons ADD COLUMN run_at TEXT;
ALTER TABLE deerflow_crons ADD COLUMN deliver_to TEXT;
`,
  },
];

const toCron = (row: CronRow) => cronFromRow(row, (value) => JSON.parse(value as string));
const JSON_COLUMNS = new Set(["payload", "metadata", "deliver_to"]);

/** Opens the cron store in `file`, migrating it first. */
export function openSqliteCronStore(file: string): CronStore {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  applySqliteMigrations(db, MIGRATIONS);

  const select = db.prepare<[string, string | null], CronRow>(
    "SELECT * FROM deerflow_crons WHERE cron_id = ? AND owner IS ?",
  );
  const ofOwner = (owner: string | null) =>
    db.prepare<[string | null], CronRow>("SELECT * FROM deerflow_crons WHERE owner IS ?").all(owner).map(toCron);
  const filter = (query: Omit<CronQuery, "limit" | "offset" | "sort_by" | "sort_order">) =>
    ofOwner(query.owner).filter(
      (cron) =>
        (query.assistant_id === undefined || cron.assistant_id === query.assistant_id) &&
        (query.thread_id === undefined || cron.thread_id === query.thread_id) &&
        (query.enabled === undefined || cron.enabled === query.enabled) &&
        (query.metadata === undefined || contains(cron.metadata, query.metadata)),
    );
  const now = () => new Date().toISOString();

  return {
    async create(cron) {
      const values = CRON_COLUMNS.map((column) => {
        const value = cron[column];
        if (JSON_COLUMNS.has(column)) return value === null ? null : JSON.stringify(value);
        if (column === "enabled") return value ? 1 : 0;
        return value;
      });
      db.prepare(
        `INSERT INTO deerflow_crons (${CRON_COLUMNS.join(", ")}) VALUES (${CRON_COLUMNS.map(() => "?").join(", ")})`,
      ).run(...values);
    },
    async get(cronId, owner) {
      const row = select.get(cronId, owner);
      return row ? toCron(row) : null;
    },
    async search(query) {
      const key = sortColumn(query.sort_by) as keyof CronRecord;
      const direction = query.sort_order === "asc" ? 1 : -1;
      const sorted = filter(query).sort((a, b) => {
        const x = a[key] ?? "";
        const y = b[key] ?? "";
        return x < y ? -direction : x > y ? direction : 0;
      });
      return sorted.slice(query.offset, query.offset + query.limit);
    },
    async count(query) {
      return filter(query).length;
    },
    async update(cronId, owner, patch) {
      const row = select.get(cronId, owner);
      if (!row) return null;
      const next = { ...toCron(row), ...patch, updated_at: now() };
      db.prepare(
        "UPDATE deerflow_crons SET last_run_id = ?, last_run_at = ?, thread_id = ?, schedule = ?, run_at = ?, deliver_to = ?, timezone = ?, end_time = ?, payload = ?, metadata = ?, enabled = ?, on_run_completed = ?, catch_up = ?, next_run_at = ?, updated_at = ? WHERE cron_id = ?",
      ).run(
        next.last_run_id,
        next.last_run_at,
        next.thread_id,
        next.schedule,
        next.run_at,
        next.deliver_to === null ? null : JSON.stringify(next.deliver_to),
        next.timezone,
        next.end_time,
        JSON.stringify(next.payload),
        JSON.stringify(next.metadata),
        next.enabled ? 1 : 0,
        next.on_run_completed,
        next.catch_up,
        next.next_run_at,
        next.updated_at,
        cronId,
      );
      return next;
    },
    async delete(cronId, owner) {
      return db.prepare("DELETE FROM deerflow_crons WHERE cron_id = ? AND owner IS ?").run(cronId, owner).changes > 0;
    },
    async deleteForThread(threadId) {
      db.prepare("DELETE FROM deerflow_crons WHERE thread_id = ?").run(threadId);
    },
    async deleteForOwner(owner) {
      db.prepare("DELETE FROM deerflow_crons WHERE owner = ?").run(owner);
    },
    async claimDue(leaseMs, limit) {
      return db.transaction(() => {
        const at = now();
        const rows = db
          .prepare<[string, string, number], CronRow>(
            "SELECT * FROM deerflow_crons WHERE enabled = 1 AND next_run_at <= ? AND (claim_expires IS NULL OR claim_expires < ?) ORDER BY next_run_at LIMIT ?",
          )
          .all(at, at, limit);
        const expires = new Date(Date.now() + leaseMs).toISOString();
        return rows.map((row) => {
          const token = randomUUID();
          db.prepare("UPDATE deerflow_crons SET claim_token = ?, claim_expires = ? WHERE cron_id = ?").run(
            token,
            expires,
            row.cron_id,
          );
          return { cron: toCron(row), token };
        });
      })();
    },
    async release(claim, outcome) {
      const at = now();
      db.prepare(
        `UPDATE deerflow_crons SET next_run_at = ?, last_run_id = coalesce(?, last_run_id), last_run_at = coalesce(?, last_run_at),
          skipped = skipped + ?, last_skipped_at = CASE WHEN ? > 0 THEN ? ELSE last_skipped_at END,
          last_error = ?, updated_at = ?, claim_token = NULL, claim_expires = NULL
         WHERE cron_id = ? AND claim_token = ?`,
      ).run(
        outcome.next_run_at,
        outcome.last_run_id ?? null,
        outcome.last_run_at ?? null,
        outcome.skipped ?? 0,
        outcome.skipped ?? 0,
        at,
        outcome.last_error ?? null,
        at,
        claim.cron.cron_id,
        claim.token,
      );
    },
    async nextDue() {
      const row = db
        .prepare<[], { at: string | null }>(
          "SELECT min(coalesce(max(next_run_at, claim_expires), next_run_at)) AS at FROM deerflow_crons WHERE enabled = 1 AND next_run_at IS NOT NULL",
        )
        .get();
      return row?.at ?? null;
    },
    async countActive() {
      return (
        db
          .prepare<[], { n: number }>(
            "SELECT count(*) AS n FROM deerflow_crons WHERE enabled = 1 AND next_run_at IS NOT NULL",
          )
          .get()?.n ?? 0
      );
    },
    close() {
      db.close();
    },
  };
}
