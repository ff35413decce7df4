/**
 * The UserStore on Postgres (tables from the harness's migration 6), shared by every process of a
 * cluster: a token issued by one process signs in on any other, and usage counters are rows every
 * process adds to, so a quota holds across the cluster.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { DailyUsage, TokenRecord, UserRecord, UserStore } from "./types.js";
import { tokenFromRow, UserExistsError } from "./types.js";

interface UserRow {
  id: string;
  name: string;
  email: string | null;
  password_hash: string | null;
  admin: boolean;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  quotas: UserRecord["quotas"];
  created_at: string;
}

const toUser = (row: UserRow): UserRecord => ({
  id: row.id,
  name: row.name,
  email: row.email,
  admin: row.admin,
  quotas: row.quotas ?? {},
  oidc_issuer: row.oidc_issuer,
  oidc_subject: row.oidc_subject,
  has_password: row.password_hash !== null,
  created_at: row.created_at,
});

const TOUCH_INTERVAL_MS = 60_000;

/** The usage columns, by counter name (never interpolate anything else into SQL). */
const COUNTERS: Record<keyof DailyUsage, string> = { runs: "runs", tokens: "tokens", upload_bytes: "upload_bytes" };

/** The user store on the harness's pool (the pool stays the harness's to close). */
export function createPostgresUserStore(pool: pg.Pool): UserStore {
  const one = async (sql: string, params: unknown[]) => {
    const result = await pool.query<UserRow>(sql, params);
    return result.rows[0] ? toUser(result.rows[0]) : null;
  };
  return {
    async count() {
      return Number((await pool.query("SELECT count(*) AS n FROM deerflow_users")).rows[0].n);
    },
    async create(user) {
      try {
        const result = await pool.query<UserRow>(
          `INSERT INTO deerflow_users (id, name, name_key, email, password_hash, admin, oidc_issuer, oidc_subject, quotas, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '{}', $9) RETURNING *`,
          [
            randomUUID(),
            user.name,
            user.name.toLowerCase(),
            user.email ?? null,
            user.password_hash ?? null,
            Boolean(user.admin),
            user.oidc?.issuer ?? null,
            user.oidc?.subject ?? null,
            new Date().toISOString(),
          ],
        );
        return toUser(result.rows[0]!);
      } catch (error) {
        if ((error as { code?: string }).code === "23505") throw new UserExistsError(user.name);
        throw error;
      }
    },
    get: (id) => one("SELECT * FROM deerflow_users WHERE id = $1", [id]),
    byName: (name) => one("SELECT * FROM deerflow_users WHERE name_key = $1", [name.toLowerCase()]),
    byOidc: (issuer, subject) =>
      one("SELECT * FROM deerflow_users WHERE oidc_issuer = $1 AND oidc_subject = $2", [issuer, subject]),
    async list() {
      return (await pool.query<UserRow>("SELECT * FROM deerflow_users ORDER BY created_at, id")).rows.map(toUser);
    },
    async passwordHash(id) {
      const result = await pool.query<{ password_hash: string | null }>(
        "SELECT password_hash FROM deerflow_users WHERE id = $1",
        [id],
      );
      return result.rows[0]?.password_hash ?? null;
    },
    async setPassword(id, passwordHash) {
      await pool.query("UPDATE deerflow_users SET password_hash = $1 WHERE id = $2", [passwordHash, id]);
    },
    update: (id, patch) =>
      one(
        `UPDATE deerflow_users SET admin = COALESCE($2, admin), quotas = COALESCE($3::jsonb, quotas),
           email = CASE WHEN $4 THEN $5 ELSE email END WHERE id = $1 RETURNING *`,
        [
          id,
          patch.admin ?? null,
          patch.quotas === undefined ? null : JSON.stringify(patch.quotas),
          patch.email !== undefined,
          patch.email ?? null,
        ],
      ),
    async ownedThreadIds(userId) {
      const result = await pool.query<{ thread_id: string }>("SELECT thread_id FROM server_threads WHERE owner = $1", [
        userId,
      ]);
      return result.rows.map((row) => row.thread_id);
    },
    async remove(id) {
      await pool.query("DELETE FROM deerflow_usage WHERE user_id = $1", [id]);
      return ((await pool.query("DELETE FROM deerflow_users WHERE id = $1", [id])).rowCount ?? 0) > 0;
    },
    firstAdmin: () => one("SELECT * FROM deerflow_users WHERE admin ORDER BY created_at, id LIMIT 1", []),
    async adoptOwnerless(userId) {
      return (await pool.query("UPDATE server_threads SET owner = $1 WHERE owner IS NULL", [userId])).rowCount ?? 0;
    },
    async addToken(token) {
      await pool.query(
        "INSERT INTO deerflow_tokens (id, user_id, kind, name, prefix, hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        [token.id, token.user_id, token.kind, token.name, token.prefix, token.hash, token.created_at, token.expires_at],
      );
    },
    async resolveToken(hash) {
      const result = await pool.query<TokenRecord & { user: UserRow }>(
        "SELECT t.*, row_to_json(u.*) AS user FROM deerflow_tokens t JOIN deerflow_users u ON u.id = t.user_id WHERE t.hash = $1",
        [hash],
      );
      const row = result.rows[0];
      if (!row) return null;
      const now = new Date();
      if (row.expires_at && row.expires_at <= now.toISOString()) {
        await pool.query("DELETE FROM deerflow_tokens WHERE id = $1", [row.id]);
        return null;
      }
      if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) > TOUCH_INTERVAL_MS) {
        row.last_used_at = now.toISOString();
        await pool.query("UPDATE deerflow_tokens SET last_used_at = $1 WHERE id = $2", [row.last_used_at, row.id]);
      }
      return { user: toUser(row.user), token: tokenFromRow(row) };
    },
    async listTokens(userId, kind) {
      const result = await pool.query<TokenRecord>(
        "SELECT * FROM deerflow_tokens WHERE user_id = $1 AND kind = $2 ORDER BY created_at, id",
        [userId, kind],
      );
      return result.rows.map(tokenFromRow);
    },
    async revokeToken(userId, tokenId) {
      const result = await pool.query("DELETE FROM deerflow_tokens WHERE id = $1 AND user_id = $2", [tokenId, userId]);
      return (result.rowCount ?? 0) > 0;
    },
    async revokeByPrefix(prefix) {
      const result = await pool.query<TokenRecord>(
        "DELETE FROM deerflow_tokens WHERE left(prefix, length($1)) = $1 RETURNING *",
        [prefix],
      );
      return result.rows.map(tokenFromRow);
    },
    async addUsage(userId, day, delta) {
      await pool.query(
        `INSERT INTO deerflow_usage (user_id, day, runs, tokens, upload_bytes) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (user_id, day) DO UPDATE SET runs = deerflow_usage.runs + excluded.runs,
           tokens = deerflow_usage.tokens + excluded.tokens, upload_bytes = deerflow_usage.upload_bytes + excluded.upload_bytes`,
        [userId, day, delta.runs ?? 0, delta.tokens ?? 0, delta.upload_bytes ?? 0],
      );
    },
    async addUsageWithin(userId, day, counter, amount, limit) {
      if (amount > limit) return false;
      const column = COUNTERS[counter];
      // ON CONFLICT DO UPDATE locks the row, so concurrent adds see each other's result.
      const result = await pool.query(
        `INSERT INTO deerflow_usage (user_id, day, ${column}) VALUES ($1, $2, $3)
         ON CONFLICT (user_id, day) DO UPDATE SET ${column} = deerflow_usage.${column} + excluded.${column}
         WHERE deerflow_usage.${column} + excluded.${column} <= $4`,
        [userId, day, amount, limit],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async usage(userId, day) {
      const result = await pool.query<{ runs: number; tokens: string; upload_bytes: string }>(
        "SELECT runs, tokens, upload_bytes FROM deerflow_usage WHERE user_id = $1 AND day = $2",
        [userId, day],
      );
      const row = result.rows[0];
      const usage: DailyUsage = row
        ? { runs: Number(row.runs), tokens: Number(row.tokens), upload_bytes: Number(row.upload_bytes) }
        : { runs: 0, tokens: 0, upload_bytes: 0 };
      return usage;
    },
    async activeRuns(userId) {
      const result = await pool.query(
        "SELECT count(*) AS n FROM server_runs r JOIN server_threads t ON t.thread_id = r.thread_id WHERE t.owner = $1 AND r.status IN ('pending', 'running')",
        [userId],
      );
      return Number(result.rows[0].n);
    },
    close() {},
  };
}
