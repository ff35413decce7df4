/**
 * Thread time to live (`ttl` on `POST /threads` and `PATCH /threads/{id}`, LangGraph's `{ttl, strategy}`
 * with `ttl` in minutes): when it runs out, the server's periodic sweep deletes the thread (`delete`) or
 * drops every checkpoint but the latest (`keep_latest`). The clock starts when the TTL is set; setting
 * it again restarts it. Kept in its own table (SQLite migration `thread-ttl-1`, Postgres migration 10)
 * beside the threads, and removed with the thread.
 */
import Database from "better-sqlite3";
import type pg from "pg";
import { applySqliteMigrations, type SqliteMigration } from "../sqlite-migrations.js";

/** What happens to a thread whose TTL ran out (and the two strategies of `POST /threads/prune`). */
export type TtlStrategy = "delete" | "keep_latest";

/** A thread whose TTL ran out. */
export interface ExpiredThread {
  thread_id: string;
  strategy: TtlStrategy;
}

/** The TTLs of threads. */
export interface ThreadTtlStore {
  set(threadId: string, minutes: number, strategy: TtlStrategy): Promise<void>;
  clear(threadId: string): Promise<void>;
  /** Removes and returns the TTLs that ran out (each is handed to one sweep only). */
  takeExpired(): Promise<ExpiredThread[]>;
  close(): void;
}

const MIGRATIONS: SqliteMigration[] = [
  {
    name: "thread-ttl-1",
    sql: `
CREATE TABLE IF NOT EXISTS deerflow_thread_ttl (
  thread_id TEXT PRIMARY KEY,
  strategy TEXT NOT NULL,
  ttl_minutes REAL NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS deerflow_thread_ttl_expiry ON deerflow_thread_ttl (expires_at);
`,
  },
];

const expiry = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

/** Opens the TTLs in `file` (the thread database). */
export function openSqliteThreadTtlStore(file: string): ThreadTtlStore {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  applySqliteMigrations(db, MIGRATIONS);
  return {
    async set(threadId, minutes, strategy) {
      db.prepare(
        `INSERT INTO deerflow_thread_ttl (thread_id, strategy, ttl_minutes, expires_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (thread_id) DO UPDATE SET strategy = excluded.strategy, ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at`,
      ).run(threadId, strategy, minutes, expiry(minutes));
    },
    async clear(threadId) {
      db.prepare("DELETE FROM deerflow_thread_ttl WHERE thread_id = ?").run(threadId);
    },
    async takeExpired() {
      return db
        .prepare<[string], ExpiredThread>(
          "DELETE FROM deerflow_thread_ttl WHERE expires_at <= ? RETURNING thread_id, strategy",
        )
        .all(new Date().toISOString());
    },
    close() {
      db.close();
    },
  };
}

/** The TTLs on Postgres (a row goes to the one process whose sweep deletes it). */
export function createPostgresThreadTtlStore(pool: pg.Pool): ThreadTtlStore {
  return {
    async set(threadId, minutes, strategy) {
      await pool.query(
        `INSERT INTO deerflow_thread_ttl (thread_id, strategy, ttl_minutes, expires_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (thread_id) DO UPDATE SET strategy = excluded.strategy, ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at`,
        [threadId, strategy, minutes, expiry(minutes)],
      );
    },
    async clear(threadId) {
      await pool.query("DELETE FROM deerflow_thread_ttl WHERE thread_id = $1", [threadId]);
    },
    async takeExpired() {
      const result = await pool.query<ExpiredThread>(
        "DELETE FROM deerflow_thread_ttl WHERE expires_at <= now() RETURNING thread_id, strategy",
      );
      return result.rows;
    },
    close() {},
  };
}
