/**
 * The UserStore in the thread database's SQLite file (the same file as `server_threads`, so a user's
 * threads and the user are one backup). Tables are created by a named, versioned migration recorded in
 * `deerflow_migrations`; the statements are synchronous, so every check-and-change is atomic in-process.
 */
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { applySqliteMigrations, type SqliteMigration } from "../sqlite-migrations.js";
import type { DailyUsage, NewUser, TokenRecord, UserRecord, UserStore } from "./types.js";
import { tokenFromRow, UserExistsError } from "./types.js";

/** SQLite migrations of the server's own tables, applied once each, in order. */
const MIGRATIONS: SqliteMigration[] = [
  {
    name: "users-1",
    sql: `
CREATE TABLE IF NOT EXISTS deerflow_users (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE,
  email TEXT,
  password_hash TEXT,
  admin INTEGER NOT NULL DEFAULT 0,
  oidc_issuer TEXT,
  oidc_subject TEXT,
  quotas TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS deerflow_users_oidc ON deerflow_users (oidc_issuer, oidc_subject) WHERE oidc_subject IS NOT NULL;
CREATE TABLE IF NOT EXISTS deerflow_tokens (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES deerflow_users (id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('api', 'session')),
  name TEXT,
  prefix TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  expires_at TEXT
);
CREATE INDEX IF NOT EXISTS deerflow_tokens_user ON deerflow_tokens (user_id, kind);
CREATE TABLE IF NOT EXISTS deerflow_usage (
  user_id TEXT NOT NULL,
  day TEXT NOT NULL,
  runs INTEGER NOT NULL DEFAULT 0,
  tokens INTEGER NOT NULL DEFAULT 0,
  upload_bytes INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, day)
);
`,
  },
];

/** Applies the user store's pending SQLite migrations to `db`. */
export function migrateSqliteUsers(db: Database.Database): void {
  applySqliteMigrations(db, MIGRATIONS);
}

interface UserRow {
  id: string;
  name: string;
  email: string | null;
  password_hash: string | null;
  admin: number;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  quotas: string;
  created_at: string;
}

const toUser = (row: UserRow): UserRecord => ({
  id: row.id,
  name: row.name,
  email: row.email,
  admin: row.admin === 1,
  quotas: JSON.parse(row.quotas) as UserRecord["quotas"],
  oidc_issuer: row.oidc_issuer,
  oidc_subject: row.oidc_subject,
  has_password: row.password_hash !== null,
  created_at: row.created_at,
});

/** The usage columns, by counter name (never interpolate anything else into SQL). */
const COUNTERS: Record<keyof DailyUsage, string> = { runs: "runs", tokens: "tokens", upload_bytes: "upload_bytes" };

/** How often a token's `last_used_at` is rewritten (every request would make each read a write). */
const TOUCH_INTERVAL_MS = 60_000;

/** Opens the user store in `file` (the thread database), migrating it first. */
export function openSqliteUserStore(file: string): UserStore {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  migrateSqliteUsers(db);
  const hasThreads = () =>
    Boolean(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'server_threads'").get());
  const userById = db.prepare<[string], UserRow>("SELECT * FROM deerflow_users WHERE id = ?");

  return {
    async count() {
      return (db.prepare("SELECT count(*) AS n FROM deerflow_users").get() as { n: number }).n;
    },
    async create(user: NewUser) {
      const id = randomUUID();
      try {
        db.prepare(
          "INSERT INTO deerflow_users (id, name, name_key, email, password_hash, admin, oidc_issuer, oidc_subject, quotas, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, '{}', ?)",
        ).run(
          id,
          user.name,
          user.name.toLowerCase(),
          user.email ?? null,
          user.password_hash ?? null,
          user.admin ? 1 : 0,
          user.oidc?.issuer ?? null,
          user.oidc?.subject ?? null,
          new Date().toISOString(),
        );
      } catch (error) {
        if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") throw new UserExistsError(user.name);
        throw error;
      }
      return toUser(userById.get(id)!);
    },
    async get(id) {
      const row = userById.get(id);
      return row ? toUser(row) : null;
    },
    async byName(name) {
      const row = db
        .prepare<[string], UserRow>("SELECT * FROM deerflow_users WHERE name_key = ?")
        .get(name.toLowerCase());
      return row ? toUser(row) : null;
    },
    async byOidc(issuer, subject) {
      const row = db
        .prepare<[string, string], UserRow>("SELECT * FROM deerflow_users WHERE oidc_issuer = ? AND oidc_subject = ?")
        .get(issuer, subject);
      return row ? toUser(row) : null;
    },
    async list() {
      return db.prepare<[], UserRow>("SELECT * FROM deerflow_users ORDER BY created_at, id").all().map(toUser);
    },
    async passwordHash(id) {
      return userById.get(id)?.password_hash ?? null;
    },
    async setPassword(id, passwordHash) {
      db.prepare("UPDATE deerflow_users SET password_hash = ? WHERE id = ?").run(passwordHash, id);
    },
    async update(id, patch) {
      const current = userById.get(id);
      if (!current) return null;
      db.prepare("UPDATE deerflow_users SET admin = ?, quotas = ?, email = ? WHERE id = ?").run(
        patch.admin === undefined ? current.admin : patch.admin ? 1 : 0,
        patch.quotas === undefined ? current.quotas : JSON.stringify(patch.quotas),
        patch.email === undefined ? current.email : patch.email,
        id,
      );
      return toUser(userById.get(id)!);
    },
    async ownedThreadIds(userId) {
      if (!hasThreads()) return [];
      return db
        .prepare<[string], { thread_id: string }>("SELECT thread_id FROM server_threads WHERE owner = ?")
        .all(userId)
        .map((row) => row.thread_id);
    },
    async remove(id) {
      return db.transaction(() => {
        db.prepare("DELETE FROM deerflow_usage WHERE user_id = ?").run(id);
        db.prepare("DELETE FROM deerflow_tokens WHERE user_id = ?").run(id);
        return db.prepare("DELETE FROM deerflow_users WHERE id = ?").run(id).changes > 0;
      })();
    },
    async firstAdmin() {
      const row = db
        .prepare<[], UserRow>("SELECT * FROM deerflow_users WHERE admin = 1 ORDER BY created_at, id LIMIT 1")
        .get();
      return row ? toUser(row) : null;
    },
    async adoptOwnerless(userId) {
      if (!hasThreads()) return 0;
      return db.prepare("UPDATE server_threads SET owner = ? WHERE owner IS NULL").run(userId).changes;
    },
    async addToken(token) {
      db.prepare(
        "INSERT INTO deerflow_tokens (id, user_id, kind, name, prefix, hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      ).run(
        token.id,
        token.user_id,
        token.kind,
        token.name,
        token.prefix,
        token.hash,
        token.created_at,
        token.expires_at,
      );
    },
    async resolveToken(hash) {
      const row = db.prepare<[string], TokenRecord>("SELECT * FROM deerflow_tokens WHERE hash = ?").get(hash);
      if (!row) return null;
      const now = new Date();
      if (row.expires_at && row.expires_at <= now.toISOString()) {
        db.prepare("DELETE FROM deerflow_tokens WHERE id = ?").run(row.id);
        return null;
      }
      const user = userById.get(row.user_id);
      if (!user) return null;
      if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) > TOUCH_INTERVAL_MS) {
        row.last_used_at = now.toISOString();
        db.prepare("UPDATE deerflow_tokens SET last_used_at = ? WHERE id = ?").run(row.last_used_at, row.id);
      }
      return { user: toUser(user), token: tokenFromRow(row) };
    },
    async listTokens(userId, kind) {
      return db
        .prepare<[string, string], TokenRecord>(
          "SELECT * FROM deerflow_tokens WHERE user_id = ? AND kind = ? ORDER BY created_at, id",
        )
        .all(userId, kind)
        .map(tokenFromRow);
    },
    async revokeToken(userId, tokenId) {
      return db.prepare("DELETE FROM deerflow_tokens WHERE id = ? AND user_id = ?").run(tokenId, userId).changes > 0;
    },
    async revokeByPrefix(prefix) {
      return db.transaction(() => {
        const rows = db
          .prepare<[string, string], TokenRecord>(
            "SELECT * FROM deerflow_tokens WHERE substr(prefix, 1, length(?)) = ?",
          )
          .all(prefix, prefix);
        for (const row of rows) db.prepare("DELETE FROM deerflow_tokens WHERE id = ?").run(row.id);
        return rows.map(tokenFromRow);
      })();
    },
    async addUsage(userId, day, delta) {
      db.prepare(
        `INSERT INTO deerflow_usage (user_id, day, runs, tokens, upload_bytes) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (user_id, day) DO UPDATE SET runs = runs + excluded.runs, tokens = tokens + excluded.tokens, upload_bytes = upload_bytes + excluded.upload_bytes`,
      ).run(userId, day, delta.runs ?? 0, delta.tokens ?? 0, delta.upload_bytes ?? 0);
    },
    async addUsageWithin(userId, day, counter, amount, limit) {
      if (amount > limit) return false;
      const column = COUNTERS[counter];
      const result = db
        .prepare(
          `INSERT INTO deerflow_usage (user_id, day, ${column}) VALUES (?, ?, ?)
           ON CONFLICT (user_id, day) DO UPDATE SET ${column} = ${column} + excluded.${column} WHERE ${column} + excluded.${column} <= ?`,
        )
        .run(userId, day, amount, limit);
      return result.changes > 0;
    },
    async usage(userId, day) {
      const row = db
        .prepare<[string, string], DailyUsage>(
          "SELECT runs, tokens, upload_bytes FROM deerflow_usage WHERE user_id = ? AND day = ?",
        )
        .get(userId, day);
      return row ?? { runs: 0, tokens: 0, upload_bytes: 0 };
    },
    async activeRuns(userId) {
      if (!hasThreads()) return 0;
      const row = db
        .prepare<[string], { n: number }>(
          "SELECT count(*) AS n FROM server_runs r JOIN server_threads t ON t.thread_id = r.thread_id WHERE t.owner = ? AND r.status IN ('pending', 'running')",
        )
        .get(userId);
      return row?.n ?? 0;
    },
    close() {
      if (db.open) db.close();
    },
  };
}
