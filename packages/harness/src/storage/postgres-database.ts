/**
 * The Postgres database of a DeerFlow.ts service: its URL (config `database.url`, alias `postgres_url`,
 * or DATABASE_URL), a connection check that says what is wrong (malformed URL, nobody listening, wrong
 * credentials, missing database), and versioned migrations the processes run themselves.
 *
 * Every process of a service may start at the same time on an empty database, so migrations run under a
 * session advisory lock: the first process migrates, the others wait and then find nothing to do. A
 * database migrated by a newer DeerFlow.ts (a version this build does not know) is refused rather than
 * written with an older idea of its tables. One list holds the tables of every layer (history archive and
 * its search index, thread leases, the server's threads, runs and run events, large checkpoint values) so one number says where a
 * database is.
 */
import pg from "pg";
import { ConfigError, HarnessError } from "../errors.js";
import { createPostgresSaver, type LeanPostgresSaver } from "./postgres-saver.js";
import { prepareRepeatedStatements, StatementNames } from "./postgres-statements.js";

/** How long a pool connection may sit idle before it is closed (5 minutes). */
const IDLE_CONNECTION_MS = 300_000;

/** Any number the advisory lock of DeerFlow.ts migrations can be told apart by ("DFTS" in ASCII). */
const MIGRATION_LOCK = 0x44465453;

/** One migration: applied once, in order, in its own transaction. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The schema, oldest first. Never edit an applied migration; add a new one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "history archive, thread leases, server threads, runs and run events",
    sql: `
CREATE TABLE IF NOT EXISTS history_archive (
  thread_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('message', 'compaction')),
  message_id TEXT,
  payload TEXT NOT NULL,
  PRIMARY KEY (thread_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS history_archive_message_id ON history_archive (thread_id, message_id) WHERE message_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS thread_leases (
  thread_id TEXT PRIMARY KEY,
  owner_pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  token TEXT NOT NULL,
  since BIGINT NOT NULL,
  expires BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS server_threads (
  thread_id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  state_updated_at TEXT NOT NULL,
  metadata JSONB NOT NULL,
  status TEXT NOT NULL,
  "values" JSONB,
  interrupts JSONB NOT NULL,
  error TEXT
);
CREATE TABLE IF NOT EXISTS server_runs (
  seq BIGSERIAL PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE,
  thread_id TEXT NOT NULL,
  assistant_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL,
  metadata JSONB NOT NULL,
  multitask_strategy TEXT NOT NULL,
  kwargs JSONB NOT NULL,
  worker_id TEXT,
  lease_expires TIMESTAMPTZ,
  cancel_action TEXT
);
CREATE INDEX IF NOT EXISTS server_runs_thread ON server_runs (thread_id, seq);
CREATE INDEX IF NOT EXISTS server_runs_pending ON server_runs (seq) WHERE status = 'pending';
CREATE UNIQUE INDEX IF NOT EXISTS server_runs_one_running ON server_runs (thread_id) WHERE status = 'running';
CREATE SEQUENCE IF NOT EXISTS run_event_ids;
CREATE TABLE IF NOT EXISTS run_events (
  id BIGINT PRIMARY KEY DEFAULT nextval('run_event_ids'),
  run_id TEXT NOT NULL,
  events JSONB NOT NULL,
  is_end BOOLEAN NOT NULL DEFAULT FALSE,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS run_events_run ON run_events (run_id, id);
CREATE INDEX IF NOT EXISTS run_events_end ON run_events (created_at) WHERE is_end;
`,
  },
  {
    version: 2,
    name: "run event trims (per-run event cap)",
    sql: `
CREATE TABLE IF NOT EXISTS run_event_trims (
  run_id TEXT PRIMARY KEY,
  through BIGINT NOT NULL
);
`,
  },
  {
    version: 3,
    name: "full-text search over the history archive",
    // One row per archived message (text, turn, role); the tsvector covers the first 100,000 characters,
    // well under Postgres's 1 MB tsvector limit, so no message is ever refused.
    sql: `
CREATE TABLE IF NOT EXISTS history_search (
  thread_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  turn INTEGER NOT NULL,
  role TEXT NOT NULL,
  text TEXT NOT NULL,
  tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('english', left(text, 100000))) STORED,
  PRIMARY KEY (thread_id, seq)
);
CREATE INDEX IF NOT EXISTS history_search_tsv ON history_search USING GIN (tsv);
`,
  },
  {
    version: 4,
    name: "large values stored once",
    // Long strings of checkpoints (postgres-large-values.ts), by SHA-256; used_at guards collection.
    sql: `
CREATE TABLE IF NOT EXISTS large_values (
  hash TEXT PRIMARY KEY,
  body TEXT NOT NULL,
  used_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
`,
  },
  {
    version: 5,
    name: "checkpoint parent links re-pointed past pruned checkpoints",
    // Retention before this left kept checkpoints naming deleted parents (storage/retention.ts, planPrune):
    // each now names the thread's newest checkpoint older than its missing parent (its nearest kept
    // ancestor). A new database has no checkpoints table yet (the checkpointer's setup runs after).
    sql: `
DO $$
BEGIN
  IF to_regclass('checkpoints') IS NOT NULL THEN
    UPDATE checkpoints SET parent_checkpoint_id = (
      SELECT max(p.checkpoint_id) FROM checkpoints p
      WHERE p.thread_id = checkpoints.thread_id AND p.checkpoint_ns = '' AND p.checkpoint_id < checkpoints.parent_checkpoint_id)
    WHERE checkpoint_ns = '' AND parent_checkpoint_id IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM checkpoints p
      WHERE p.thread_id = checkpoints.thread_id AND p.checkpoint_ns = '' AND p.checkpoint_id = checkpoints.parent_checkpoint_id);
  END IF;
END $$;
`,
  },
  {
    version: 6,
    name: "users, their tokens and usage; thread owners",
    // docs/auth.md. A thread's owner is a user id; NULL is the home's local user (no accounts yet),
    // whose threads become the first admin's when accounts are turned on.
    sql: `
ALTER TABLE server_threads ADD COLUMN IF NOT EXISTS owner TEXT;
CREATE INDEX IF NOT EXISTS server_threads_owner ON server_threads (owner);
CREATE TABLE IF NOT EXISTS deerflow_users (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE,
  email TEXT,
  password_hash TEXT,
  admin BOOLEAN NOT NULL DEFAULT FALSE,
  oidc_issuer TEXT,
  oidc_subject TEXT,
  quotas JSONB NOT NULL DEFAULT '{}',
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
  tokens BIGINT NOT NULL DEFAULT 0,
  upload_bytes BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, day)
);
`,
  },
  {
    version: 7,
    name: "crons and webhook deliveries",
    // docs/schedules.md. A cron is claimed for a short lease (claim_token, claim_expires) while one
    // process fires its due time; a delivery row exists from the run's creation, so a crash between the
    // run's end and its webhook retries the delivery.
    sql: `
CREATE TABLE IF NOT EXISTS deerflow_crons (
  cron_id TEXT PRIMARY KEY,
  assistant_id TEXT NOT NULL,
  thread_id TEXT,
  schedule TEXT NOT NULL,
  timezone TEXT NOT NULL,
  end_time TEXT,
  payload JSONB NOT NULL,
  metadata JSONB NOT NULL,
  enabled BOOLEAN NOT NULL,
  on_run_completed TEXT NOT NULL,
  catch_up TEXT NOT NULL,
  owner TEXT,
  next_run_at TIMESTAMPTZ,
  last_run_id TEXT,
  last_run_at TEXT,
  skipped INTEGER NOT NULL DEFAULT 0,
  last_skipped_at TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  claim_token TEXT,
  claim_expires TIMESTAMPTZ
);
CREATE INDEX IF NOT EXISTS deerflow_crons_owner ON deerflow_crons (owner);
CREATE INDEX IF NOT EXISTS deerflow_crons_due ON deerflow_crons (next_run_at) WHERE enabled;
CREATE TABLE IF NOT EXISTS deerflow_deliveries (
  delivery_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  url TEXT NOT NULL,
  body TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  status TEXT NOT NULL DEFAULT 'waiting',
  last_error TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS deerflow_deliveries_open ON deerflow_deliveries (next_attempt_at) WHERE status = 'waiting';
`,
  },
  {
    version: 8,
    name: "thread search order indexes",
    // A user's threads newest first (by creation or by update, the thread id breaking ties) are read from
    // an index in order, one page at a time; the owner-only index of migration 6 is the prefix of both.
    sql: `
CREATE INDEX IF NOT EXISTS server_threads_owner_created ON server_threads (owner, created_at, thread_id);
CREATE INDEX IF NOT EXISTS server_threads_owner_updated ON server_threads (owner, updated_at, thread_id);
DROP INDEX IF EXISTS server_threads_owner;
`,
  },
  {
    version: 9,
    name: "one-shot crons and channel delivery",
    // docs/schedules.md: a cron with run_at fires once at that time (DeerFlow's "once" scheduled
    // tasks); deliver_to sends each firing's answer to a chat channel.
    sql: `
ALTER TABLE deerflow_crons ADD COLUMN IF NOT EXISTS run_at TEXT;
ALTER TABLE deerflow_crons ADD COLUMN IF NOT EXISTS deliver_to JSONB;
`,
  },
  {
    version: 10,
    name: "batch_task: batches and their items",
    // docs/batch.md: one row per batch_task call and one per item, claimed with leases; the SQLite file
    // has the same tables (batch/sqlite-store.ts). Times are epoch milliseconds.
    sql: `
CREATE TABLE IF NOT EXISTS deerflow_batches (
  batch_id TEXT PRIMARY KEY,
  thread_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  owner TEXT,
  description TEXT NOT NULL,
  template TEXT,
  subagent_type TEXT NOT NULL,
  concurrency INTEGER NOT NULL,
  max_attempts INTEGER NOT NULL,
  total INTEGER NOT NULL,
  output_path TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished_at BIGINT,
  UNIQUE (thread_id, tool_call_id)
);
CREATE TABLE IF NOT EXISTS deerflow_batch_items (
  batch_id TEXT NOT NULL REFERENCES deerflow_batches (batch_id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  item TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'done', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expires_at BIGINT,
  result TEXT,
  error TEXT,
  PRIMARY KEY (batch_id, idx)
);
CREATE INDEX IF NOT EXISTS deerflow_batch_items_state ON deerflow_batch_items (batch_id, state, idx);
`,
  },
  {
    version: 11,
    name: "product routes: feedback, store items, thread TTLs",
    // Thumbs up/down per run and person (routes/feedback.ts), the LangGraph store API's items per owner
    // (store/), and thread TTLs swept by the server (runs/thread-ttl.ts). Owner '' is the local user.
    sql: `
CREATE TABLE IF NOT EXISTS deerflow_feedback (
  feedback_id TEXT PRIMARY KEY,
  thread_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  owner TEXT NOT NULL,
  message_id TEXT NOT NULL,
  rating INTEGER NOT NULL,
  comment TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (run_id, owner, message_id)
);
CREATE INDEX IF NOT EXISTS deerflow_feedback_thread ON deerflow_feedback (thread_id, run_id);
CREATE TABLE IF NOT EXISTS deerflow_store_items (
  owner TEXT NOT NULL,
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value JSONB NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  ttl_minutes DOUBLE PRECISION,
  expires_at TIMESTAMPTZ,
  PRIMARY KEY (owner, namespace, key)
);
CREATE INDEX IF NOT EXISTS deerflow_store_items_expiry ON deerflow_store_items (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS deerflow_thread_ttl (
  thread_id TEXT PRIMARY KEY,
  strategy TEXT NOT NULL,
  ttl_minutes DOUBLE PRECISION NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS deerflow_thread_ttl_expiry ON deerflow_thread_ttl (expires_at);
`,
  },
];

/** The newest schema version this build knows. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/**
 * The Postgres URL to use: `database.url`, then its older name `database.postgres_url`, then DATABASE_URL.
 * Throws a ConfigError naming the key when it is missing or not a postgres:// URL.
 */
export function resolveDatabaseUrl(
  database: { url?: string | null; postgres_url?: string | null },
  env: Record<string, string | undefined> = process.env,
): string {
  const [key, value] = database.url
    ? ["database.url", database.url]
    : database.postgres_url
      ? ["database.postgres_url", database.postgres_url]
      : env.DATABASE_URL
        ? ["DATABASE_URL", env.DATABASE_URL]
        : [null, null];
  if (!key || !value) {
    throw new ConfigError(
      'database.backend is "postgres" but no database.url is set. Set database.url (postgres://user:password@host:5432/db) in config.yaml or DATABASE_URL.',
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`${key} is not a URL ("${redact(value)}"). Use postgres://user:password@host:5432/database.`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new ConfigError(
      `${key} must start with postgres:// or postgresql:// (got "${parsed.protocol}"). Use postgres://user:password@host:5432/database.`,
    );
  }
  if (!parsed.hostname && !parsed.searchParams.get("host"))
    throw new ConfigError(
      `${key} names no host ("${redact(value)}"). Use postgres://user:password@host:5432/database.`,
    );
  return value;
}

/** The URL with its password hidden, for messages. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, "$1***@");
}

/** An open Postgres database: a pool, the checkpointer on it, and a health probe. */
export interface PostgresDatabase {
  url: string;
  pool: pg.Pool;
  saver: LeanPostgresSaver;
  /** True when a trivial query answers within a few seconds. */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

/** Options of {@link openPostgresDatabase}. */
export interface PostgresDatabaseOptions {
  /** Run the migrations (default true). `deerflow db migrate` and the server do; a reader could not. */
  migrate?: boolean;
  /** Connections in the pool (default 10). */
  maxConnections?: number;
}

/**
 * Connects, checks the connection, migrates, and sets up the checkpointer's tables.
 *
 * @example
 * const db = await openPostgresDatabase(resolveDatabaseUrl(config.database));
 */
export async function openPostgresDatabase(
  url: string,
  options: PostgresDatabaseOptions = {},
): Promise<PostgresDatabase> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: 10_000,
    // Idle connections are kept for minutes, not node-postgres's 10 s: a new connection costs the
    // database a process and the statements it had prepared (postgres-statements.ts).
    idleTimeoutMillis: IDLE_CONNECTION_MS,
  });
  const names = new StatementNames();
  // An idle connection that dies (server restart) must not crash the process; the pool replaces it.
  pool.on("error", () => {});
  // A connection the server terminates while it is checked out between two queries emits an error no
  // one listens to, which would crash the process; its current or next query fails instead.
  pool.on("connect", (client) => {
    client.on("error", () => {});
    prepareRepeatedStatements(client, names);
  });
  try {
    await pool.query("SELECT 1");
  } catch (error) {
    await pool.end().catch(() => {});
    throw connectionError(url, error);
  }
  // Long strings (big tool results and arguments) are stored once, not in every version of a channel.
  const saver = createPostgresSaver(pool);
  try {
    if (options.migrate ?? true) await migrate(pool, saver);
    else await checkVersion(pool);
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  let closed = false;
  return {
    url,
    pool,
    saver,
    async healthy() {
      try {
        await Promise.race([
          pool.query("SELECT 1"),
          new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 3000).unref()),
        ]);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end().catch(() => {});
    },
  };
}

/**
 * Applies the pending migrations under an advisory lock (concurrent starts wait for each other) and
 * returns the versions applied. Refuses a database whose version is newer than this build's.
 */
export async function migrate(pool: pg.Pool, saver?: { setup(): Promise<void> }): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await client.query(
        "CREATE TABLE IF NOT EXISTS deerflow_schema (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
      );
      const current = await currentVersion(client);
      refuseNewer(current);
      for (const migration of MIGRATIONS) {
        if (migration.version <= current) continue;
        await client.query("BEGIN");
        try {
          await client.query(migration.sql);
          await client.query("INSERT INTO deerflow_schema (version, name) VALUES ($1, $2)", [
            migration.version,
            migration.name,
          ]);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK").catch(() => {});
          throw new HarnessError(
            "storage_unusable",
            `Database migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}. Nothing of it was applied; fix the cause and start again.`,
            { cause: error },
          );
        }
        applied.push(migration.version);
      }
      // The checkpointer's own tables (it versions them itself); under our lock so two starts do not race.
      if (saver) await saver.setup();
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    }
  } finally {
    client.release();
  }
  return applied;
}

async function checkVersion(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    refuseNewer(await currentVersion(client));
  } finally {
    client.release();
  }
}

async function currentVersion(client: pg.PoolClient): Promise<number> {
  const exists = await client.query("SELECT to_regclass('deerflow_schema') AS name");
  if (!exists.rows[0]?.name) return 0;
  const result = await client.query("SELECT COALESCE(MAX(version), 0) AS version FROM deerflow_schema");
  return Number(result.rows[0].version);
}

function refuseNewer(version: number): void {
  if (version > SCHEMA_VERSION) {
    throw new HarnessError(
      "storage_unusable",
      `The database schema is version ${version}, newer than this DeerFlow.ts knows (${SCHEMA_VERSION}): a newer release migrated it. Upgrade DeerFlow.ts on this machine; starting would risk writing tables it does not understand.`,
    );
  }
}

/**
 * Runs `work` in one transaction on one pooled connection: committed when it returns, rolled back when it
 * throws (the error goes on to the caller), the connection released either way.
 *
 * @example
 * await inTransaction(pool, (client) => client.query("DELETE FROM server_runs WHERE thread_id = $1", [threadId]));
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** Turns pg's connection failures into what is wrong and what to do. */
export function connectionError(url: string, error: unknown): HarnessError {
  const code = String((error as { code?: unknown }).code ?? "");
  const reason = (error as Error)?.message?.split("\n")[0] ?? String(error);
  const shown = redact(url);
  let message: string;
  if (code === "28P01" || code === "28000")
    message = `Postgres at ${shown} refused the credentials (${reason}). Check the user and password in database.url (or DATABASE_URL).`;
  else if (code === "3D000")
    message = `The database in ${shown} does not exist (${reason}). Create it (createdb) or fix database.url.`;
  else if (
    ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH"].includes(code) ||
    /timeout/i.test(reason)
  ) {
    message = `Cannot reach Postgres at ${shown} (${reason}). Start the database or fix database.url (or DATABASE_URL).`;
  } else message = `Cannot use Postgres at ${shown} (${reason}). Check database.url (or DATABASE_URL).`;
  return new HarnessError("storage_unusable", message, { cause: error });
}
