/** The ItemStore on Postgres (migration 10, table `deerflow_store_items`). */
import type pg from "pg";
import { decodeNamespace, encodeNamespace, expiryOf, type ItemRow, type ItemStore, itemOf, ownerKey } from "./types.js";

const LIVE = "(expires_at IS NULL OR expires_at > now())";
const COLUMNS = `namespace, key, value::text AS value, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at`;
const REFRESH = `UPDATE deerflow_store_items SET expires_at = now() + make_interval(secs => ttl_minutes * 60)
  WHERE owner = $1 AND namespace = $2 AND key = $3 AND ttl_minutes IS NOT NULL`;

/** Creates the store over the harness's pool. */
export function createPostgresItemStore(pool: pg.Pool): ItemStore {
  return {
    async put(owner, namespace, key, value, ttlMinutes) {
      await pool.query(
        `INSERT INTO deerflow_store_items (owner, namespace, key, value, ttl_minutes, expires_at)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6)
         ON CONFLICT (owner, namespace, key) DO UPDATE SET value = excluded.value, updated_at = now(),
           ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at,
           created_at = CASE WHEN deerflow_store_items.expires_at <= now() THEN now() ELSE deerflow_store_items.created_at END`,
        [ownerKey(owner), encodeNamespace(namespace), key, JSON.stringify(value), ttlMinutes, expiryOf(ttlMinutes)],
      );
    },
    async get(owner, namespace, key, refreshTtl) {
      const args = [ownerKey(owner), encodeNamespace(namespace), key];
      if (refreshTtl) await pool.query(REFRESH, args);
      const result = await pool.query<ItemRow>(
        `SELECT ${COLUMNS} FROM deerflow_store_items WHERE owner = $1 AND namespace = $2 AND key = $3 AND ${LIVE}`,
        args,
      );
      return result.rows[0] ? itemOf(result.rows[0]) : null;
    },
    async delete(owner, namespace, key) {
      await pool.query("DELETE FROM deerflow_store_items WHERE owner = $1 AND namespace = $2 AND key = $3", [
        ownerKey(owner),
        encodeNamespace(namespace),
        key,
      ]);
    },
    async rowsUnder(owner, prefix, page) {
      const start = encodeNamespace(prefix);
      const result = await pool.query<ItemRow>(
        `SELECT ${COLUMNS} FROM deerflow_store_items
         WHERE owner = $1 AND left(namespace, $2) = $3 AND ${LIVE} ORDER BY deerflow_store_items.updated_at DESC, namespace, key
         LIMIT $4 OFFSET $5`,
        [ownerKey(owner), start.length, start, page?.limit ?? null, page?.offset ?? 0],
      );
      return result.rows;
    },
    async refresh(owner, items) {
      for (const item of items) await pool.query(REFRESH, [ownerKey(owner), encodeNamespace(item.namespace), item.key]);
    },
    async namespaces(owner) {
      const result = await pool.query<{ namespace: string }>(
        `SELECT DISTINCT namespace FROM deerflow_store_items WHERE owner = $1 AND ${LIVE} ORDER BY namespace`,
        [ownerKey(owner)],
      );
      return result.rows.map((row) => decodeNamespace(row.namespace));
    },
    async sweep() {
      const result = await pool.query("DELETE FROM deerflow_store_items WHERE expires_at <= now()");
      return result.rowCount ?? 0;
    },
    close() {},
  };
}
