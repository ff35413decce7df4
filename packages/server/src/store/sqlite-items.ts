/** The ItemStore in the thread database's SQLite file (SQLite migration `store-items-1`). */
import Database from "better-sqlite3";
import { applySqliteMigrations, type SqliteMigration } from "../sqlite-migrations.js";
import { decodeNamespace, encodeNamespace, expiryOf, type ItemRow, type ItemStore, itemOf, ownerKey } from "./types.js";

const MIGRATIONS: SqliteMigration[] = [
  {
    name: "store-items-1",
    sql: `
CREATE TABLE IF NOT EXISTS deerflow_store_items (
  owner TEXT NOT NULL,
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  ttl_minutes REAL,
  expires_at TEXT,
  PRIMARY KEY (owner, namespace, key)
);
CREATE INDEX IF NOT EXISTS deerflow_store_items_expiry ON deerflow_store_items (expires_at) WHERE expires_at IS NOT NULL;
`,
  },
];

const LIVE = "(expires_at IS NULL OR expires_at > ?)";

/** Opens the store in `file` (the thread database). */
export function openSqliteItemStore(file: string): ItemStore {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  applySqliteMigrations(db, MIGRATIONS);
  const now = () => new Date().toISOString();
  const refreshOne = db.prepare(
    `UPDATE deerflow_store_items SET expires_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || (ttl_minutes * 60) || ' seconds')
     WHERE owner = ? AND namespace = ? AND key = ? AND ttl_minutes IS NOT NULL`,
  );
  return {
    async put(owner, namespace, key, value, ttlMinutes) {
      const at = now();
      db.prepare(
        `INSERT INTO deerflow_store_items (owner, namespace, key, value, created_at, updated_at, ttl_minutes, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (owner, namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at,
           ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at,
           created_at = CASE WHEN deerflow_store_items.expires_at IS NOT NULL AND deerflow_store_items.expires_at <= excluded.updated_at
                             THEN excluded.created_at ELSE deerflow_store_items.created_at END`,
      ).run(
        ownerKey(owner),
        encodeNamespace(namespace),
        key,
        JSON.stringify(value),
        at,
        at,
        ttlMinutes,
        expiryOf(ttlMinutes),
      );
    },
    async get(owner, namespace, key, refreshTtl) {
      const args = [ownerKey(owner), encodeNamespace(namespace), key] as const;
      if (refreshTtl) refreshOne.run(...args);
      const row = db
        .prepare<unknown[], ItemRow>(
          `SELECT namespace, key, value, created_at, updated_at FROM deerflow_store_items WHERE owner = ? AND namespace = ? AND key = ? AND ${LIVE}`,
        )
        .get(...args, now());
      return row ? itemOf(row) : null;
    },
    async delete(owner, namespace, key) {
      db.prepare("DELETE FROM deerflow_store_items WHERE owner = ? AND namespace = ? AND key = ?").run(
        ownerKey(owner),
        encodeNamespace(namespace),
        key,
      );
    },
    async rowsUnder(owner, prefix, page) {
      const start = encodeNamespace(prefix);
      return db
        .prepare<unknown[], ItemRow>(
          `SELECT namespace, key, value, created_at, updated_at FROM deerflow_store_items
           WHERE owner = ? AND substr(namespace, 1, ?) = ? AND ${LIVE} ORDER BY updated_at DESC, namespace, key
           LIMIT ? OFFSET ?`,
        )
        .all(ownerKey(owner), start.length, start, now(), page?.limit ?? -1, page?.offset ?? 0);
    },
    async refresh(owner, items) {
      db.transaction(() => {
        for (const item of items) refreshOne.run(ownerKey(owner), encodeNamespace(item.namespace), item.key);
      })();
    },
    async namespaces(owner) {
      return db
        .prepare<unknown[], { namespace: string }>(
          `SELECT DISTINCT namespace FROM deerflow_store_items WHERE owner = ? AND ${LIVE} ORDER BY namespace`,
        )
        .all(ownerKey(owner), now())
        .map((row) => decodeNamespace(row.namespace));
    },
    async sweep() {
      return db.prepare("DELETE FROM deerflow_store_items WHERE expires_at IS NOT NULL AND expires_at <= ?").run(now())
        .changes;
    },
    close() {
      db.close();
    },
  };
}
