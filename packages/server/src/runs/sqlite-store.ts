/**
 * The local ThreadStore and RunStore: two tables in the checkpoint SQLite file, so one file holds a
 * thread's checkpoints, its history archive, its record and its runs, and a backup is one copy. WAL mode
 * lets the checkpointer's connection and this one write side by side. Strategy checks and claims run in
 * transactions, which is what makes "one running run per thread" hold. A thread search filters, sorts and
 * pages in SQL (metadata and values containment through a JavaScript SQL function) and decodes the JSON of
 * the returned page only.
 */
import Database from "better-sqlite3";
import { applySqliteMigrations, type SqliteMigration } from "../sqlite-migrations.js";
import {
  JSON_FIELDS,
  runFromRow,
  type StoredRunRow,
  type StoredThreadRow,
  threadFieldsFromRow,
  threadFromRow,
  threadSearchColumns,
  threadSearchOrder,
} from "./store-rows.js";
import { threadJsonFields, threadJsonSql } from "./thread-json.js";
import { ThreadBusyError } from "./types.js";
import type {
  RunEnd,
  RunQuota,
  RunRecord,
  RunStore,
  ThreadPatch,
  ThreadQuery,
  ThreadRecord,
  ThreadStore,
} from "./types.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS server_threads (
  thread_id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  state_updated_at TEXT NOT NULL,
  metadata TEXT NOT NULL,
  status TEXT NOT NULL,
  "values" TEXT,
  interrupts TEXT NOT NULL,
  error TEXT,
  owner TEXT
);
CREATE TABLE IF NOT EXISTS server_runs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL UNIQUE,
  thread_id TEXT NOT NULL,
  assistant_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL,
  metadata TEXT NOT NULL,
  multitask_strategy TEXT NOT NULL,
  kwargs TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS server_runs_thread ON server_runs (thread_id, seq);
CREATE INDEX IF NOT EXISTS server_runs_status ON server_runs (status, seq);
`;

/** Named migrations of the thread tables (after SCHEMA and the owner column); recorded in `deerflow_migrations`. */
const MIGRATIONS: SqliteMigration[] = [
  {
    // A user's threads newest first (the sidebar's and the SDK's default orders) are read from an index in
    // order, a page at a time; the owner-only index before it is the prefix of both.
    name: "threads-order-1",
    sql: `
CREATE INDEX IF NOT EXISTS server_threads_owner_created ON server_threads (owner, created_at, thread_id);
CREATE INDEX IF NOT EXISTS server_threads_owner_updated ON server_threads (owner, updated_at, thread_id);
DROP INDEX IF EXISTS server_threads_owner;
`,
  },
  {
    // Each thread keeps the JSON text of its API answer around its values (runs/thread-json.ts): SQLite
    // writes `json_head` and `json_tail` whenever the row changes, and `json_ok` says its JSON columns are
    // JSON. A search then reads `json_head || values || json_tail` per thread instead of putting ten fields
    // together. The values are not stored twice. Generated columns are added by rebuilding the table.
    name: "threads-json-1",
    sql: `
CREATE TABLE server_threads_next (
  thread_id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  state_updated_at TEXT NOT NULL,
  metadata TEXT NOT NULL,
  status TEXT NOT NULL,
  "values" TEXT,
  interrupts TEXT NOT NULL,
  error TEXT,
  owner TEXT,
  json_head TEXT GENERATED ALWAYS AS ('{"thread_id":' || json_quote(thread_id) || ',"created_at":' || json_quote(created_at) || ',"updated_at":' || json_quote(updated_at) || ',"state_updated_at":' || json_quote(state_updated_at) || ',"metadata":' || metadata || ',"status":' || json_quote(status) || ',"values":') STORED,
  json_tail TEXT GENERATED ALWAYS AS (',"interrupts":' || interrupts || ',"error":' || json_quote(error) || ',"config":{}}') STORED,
  json_ok INTEGER GENERATED ALWAYS AS (json_valid(metadata) AND json_valid(coalesce("values", 'null')) AND json_valid(interrupts)) STORED
);
INSERT INTO server_threads_next (thread_id, created_at, updated_at, state_updated_at, metadata, status, "values", interrupts, error, owner)
  SELECT thread_id, created_at, updated_at, state_updated_at, metadata, status, "values", interrupts, error, owner FROM server_threads;
DROP TABLE server_threads;
ALTER TABLE server_threads_next RENAME TO server_threads;
CREATE INDEX server_threads_owner_created ON server_threads (owner, created_at, thread_id);
CREATE INDEX server_threads_owner_updated ON server_threads (owner, updated_at, thread_id);
`,
  },
];

/** Most search statements kept compiled (one per shape: filters, order, fields); the cache starts over past it. */
const MAX_SEARCH_STATEMENTS = 64;
/** Most thread counts kept between writes (one per filter); the cache starts over past it. */
const MAX_KEPT_COUNTS = 64;

/** The SQL function a search's metadata and values filters call: 1 when JSON text `actual` contains `expected`. */
const CONTAINS_FUNCTION = "deerflow_json_contains";

type ThreadRow = StoredThreadRow<string>;
type ThreadFilter = Omit<ThreadQuery, "limit" | "offset" | "sort_by" | "sort_order" | "fields">;
type RunRow = StoredRunRow<string>;

const now = () => new Date().toISOString();

const toThread = (row: ThreadRow) => threadFromRow(row, JSON.parse);
const toThreadFields = (row: Partial<ThreadRow>) => threadFieldsFromRow(row, JSON.parse);
const toRun = (row: RunRow) => runFromRow(row, JSON.parse);

/** True when `actual` contains `expected` (JSONB `@>` semantics: objects by key, everything else equal). */
export function contains(actual: unknown, expected: unknown): boolean {
  if (expected !== null && typeof expected === "object" && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([key, value]) => contains((actual as Record<string, unknown>)[key], value));
  }
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && expected.every((item) => actual.some((candidate) => contains(candidate, item)));
  }
  return actual === expected;
}

/** The local stores over one SQLite file. */
export interface SqliteRunStores {
  threads: ThreadStore;
  runs: RunStore;
  /** Claims the oldest pending run whose thread runs nothing (for the local queue). */
  claim(): RunRecord | null;
  /** Running runs back to pending (after a crash or a drain). */
  requeueRunning(): RunRecord[];
  /**
   * Removes the thread's checkpoints written after `checkpointId` (all of them when null), so the
   * thread's head is what it was before a rolled-back run.
   */
  rollbackCheckpoints(threadId: string, checkpointId: string | null): void;
  /** Deletes the thread's checkpoints, pending writes and history archive. */
  deleteThreadState(threadId: string): void;
  /** Copies the thread's checkpoints, pending writes and history archive to a new thread id. */
  copyThreadState(fromThreadId: string, toThreadId: string): void;
  close(): void;
}

/** Opens the stores in `file` (the checkpoint file), creating the tables if needed. */
export function openSqliteRunStores(file: string): SqliteRunStores {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.exec(SCHEMA);
  // Files from before accounts: their threads have no owner column yet (NULL = the local user's).
  const threadColumns = db.prepare<[], { name: string }>("PRAGMA table_info(server_threads)").all();
  if (!threadColumns.some((column) => column.name === "owner"))
    db.exec("ALTER TABLE server_threads ADD COLUMN owner TEXT");
  applySqliteMigrations(db, MIGRATIONS);
  db.function(CONTAINS_FUNCTION, { deterministic: true }, (actual, expected) =>
    contains(JSON.parse(actual as string), JSON.parse(expected as string)) ? 1 : 0,
  );

  const tableExists = (name: string) =>
    Boolean(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name));
  const getThread = db.prepare<[string], ThreadRow>("SELECT * FROM server_threads WHERE thread_id = ?");
  // The stored columns only: a patch has no use for the generated JSON text around the values.
  const getThreadColumns = db.prepare<[string], ThreadRow>(
    `SELECT thread_id, created_at, updated_at, state_updated_at, metadata, status, "values", interrupts, error, owner
     FROM server_threads WHERE thread_id = ?`,
  );
  const insertThread = db.prepare(
    `INSERT INTO server_threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, "values", interrupts, error, owner)
     VALUES (?, ?, ?, ?, ?, 'idle', NULL, '{}', NULL, ?) ON CONFLICT (thread_id) DO NOTHING`,
  );
  const searchStatements = new Map<string, Database.Statement<unknown[], unknown>>();
  /** The statement of `sql`, compiled once per search shape; `pluck` ones return each row's one value. */
  const searchStatement = <Row>(sql: string, pluck = false) => {
    let statement = searchStatements.get(sql);
    if (!statement) {
      if (searchStatements.size >= MAX_SEARCH_STATEMENTS) searchStatements.clear();
      statement = db.prepare(sql);
      if (pluck) statement.pluck();
      searchStatements.set(sql, statement);
    }
    return statement as Database.Statement<unknown[], Row>;
  };
  const dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
  const totalChanges = db.prepare<[], number>("SELECT total_changes()").pluck();
  /** Counts by filter, valid while the file is at `countsVersion` (see countThreads). */
  const counts = new Map<string, number>();
  let countsVersion = "";
  const getRun = db.prepare<[string], RunRow>("SELECT * FROM server_runs WHERE run_id = ?");
  const activeRuns = db.prepare<[string], RunRow>(
    "SELECT * FROM server_runs WHERE thread_id = ? AND status IN ('pending', 'running') ORDER BY seq",
  );
  const insertRun = db.prepare(
    "INSERT INTO server_runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, multitask_strategy, kwargs) VALUES (@run_id, @thread_id, @assistant_id, @created_at, @updated_at, @status, @metadata, @multitask_strategy, @kwargs)",
  );
  const setRunStatus = db.prepare("UPDATE server_runs SET status = ?, updated_at = ? WHERE run_id = ?");
  const deleteRun = db.prepare("DELETE FROM server_runs WHERE run_id = ?");
  const updateRun = db.prepare("UPDATE server_runs SET status = ?, kwargs = ?, updated_at = ? WHERE run_id = ?");
  const updateThread = db.prepare(
    'UPDATE server_threads SET updated_at = ?, state_updated_at = ?, metadata = ?, status = ?, "values" = ?, interrupts = ?, error = ? WHERE thread_id = ?',
  );
  const claimable = db.prepare<[string], RunRow>(
    "SELECT * FROM server_runs WHERE status = 'pending' AND thread_id NOT IN (SELECT thread_id FROM server_runs WHERE status = 'running') AND coalesce(json_extract(kwargs, '$.not_before'), '') <= ? ORDER BY seq LIMIT 1",
  );
  // Read-modify-write steps are IMMEDIATE transactions: with run worker threads (runs/thread-pool.ts) other
  // connections write the same rows, and a deferred transaction that read first could not take the write lock.
  /**
   * Writes `patch` over the thread's row and returns the row written. The JSON columns the patch leaves
   * alone are copied as text, not parsed and written again: a run's claim and its request mark the
   * thread busy, and its settle replaces the values, so none of them needs the thread's old values (on a
   * long conversation those were most of a run's store time).
   */
  const patchThreadRow = (threadId: string, patch: Parameters<ThreadStore["patch"]>[1]): ThreadRow | null => {
    const row = getThreadColumns.get(threadId);
    if (!row) return null;
    const at = now();
    const next: ThreadRow = {
      ...row,
      metadata: patch.metadata ? JSON.stringify({ ...JSON.parse(row.metadata), ...patch.metadata }) : row.metadata,
      status: patch.status ?? row.status,
      values: patch.values === undefined ? row.values : patch.values === null ? null : JSON.stringify(patch.values),
      interrupts: patch.interrupts ? JSON.stringify(patch.interrupts) : row.interrupts,
      error: patch.error !== undefined ? patch.error : row.error,
      updated_at: at,
      state_updated_at: patch.values !== undefined ? at : row.state_updated_at,
    };
    updateThread.run(
      next.updated_at,
      next.state_updated_at,
      next.metadata,
      next.status,
      next.values,
      next.interrupts,
      next.error,
      threadId,
    );
    return next;
  };
  const patchThread = db.transaction((threadId: string, patch: Parameters<ThreadStore["patch"]>[1]) => {
    const row = patchThreadRow(threadId, patch);
    return row ? toThread(row) : null;
  });

  const threads: ThreadStore = {
    async create(threadId, metadata, ifExists, owner = null) {
      void ifExists;
      const at = now();
      const text = JSON.stringify(metadata);
      // One statement for a new thread; its record is what was just written, so it is not read back.
      if (insertThread.run(threadId, at, at, at, text, owner).changes === 0)
        return { thread: toThread(getThread.get(threadId)!), created: false };
      const thread: ThreadRecord = {
        thread_id: threadId,
        created_at: at,
        updated_at: at,
        state_updated_at: at,
        metadata: JSON.parse(text) as Record<string, unknown>,
        status: "idle",
        values: null,
        interrupts: {},
        error: null,
        owner,
      };
      return { thread, created: true };
    },
    async get(threadId) {
      const row = getThread.get(threadId);
      return row ? toThread(row) : null;
    },
    async search(query) {
      const { where, params } = threadFilter(query);
      const rows = searchStatement<Partial<ThreadRow>>(
        `SELECT ${threadSearchColumns(query.fields)} FROM server_threads ${where} ${threadSearchOrder(query)} LIMIT ? OFFSET ?`,
      ).all(...params, query.limit, query.offset);
      return { threads: rows.map(toThreadFields), total: pageTotal(query, rows.length) };
    },
    async searchJson(query, select) {
      const { where, params } = threadFilter(query);
      const fields = threadJsonFields(select);
      // A damaged thread (JSON columns that are not JSON, written outside the server) comes back as its id,
      // a JSON string rather than a `{`. Every field: the stored answer around the values (threads-json-1);
      // a selection: put together here, its JSON columns checked as they are read.
      const checked = fields.filter((field) => JSON_FIELDS.has(field));
      const thread = !select?.length
        ? `CASE WHEN json_ok THEN json_head || coalesce("values", 'null') || json_tail ELSE json_quote(thread_id) END`
        : checked.length > 0
          ? `CASE WHEN ${checked.map((field) => `json_valid(coalesce("${field}", 'null'))`).join(" AND ")} THEN ${threadJsonSql(fields, "sqlite")} ELSE json_quote(thread_id) END`
          : threadJsonSql(fields, "sqlite");
      const threads = searchStatement<string>(
        `SELECT ${thread} FROM server_threads ${where} ${threadSearchOrder(query)} LIMIT ? OFFSET ?`,
        true,
      ).all(...params, query.limit, query.offset);
      for (const text of threads)
        if (!text.startsWith("{"))
          throw new Error(
            `Thread ${JSON.parse(text)} has damaged JSON in server_threads (${file}): its metadata, values or interrupts are not valid JSON. Restore the file from a backup, or delete the thread.`,
          );
      return { threads, total: pageTotal(query, threads.length) };
    },
    async count(query) {
      return countThreads(query);
    },
    async patch(threadId, patch) {
      return patchThread.immediate(threadId, patch);
    },
    async delete(threadId, options = {}) {
      return db
        .transaction(() => {
          if (!options.keepRuns) db.prepare("DELETE FROM server_runs WHERE thread_id = ?").run(threadId);
          return db.prepare("DELETE FROM server_threads WHERE thread_id = ?").run(threadId).changes > 0;
        })
        .immediate();
    },
  };

  /** The WHERE clause of a thread search or count, and its parameters. */
  function threadFilter(query: ThreadFilter): { where: string; params: unknown[] } {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.ids) {
      where.push("thread_id IN (SELECT value FROM json_each(?))");
      params.push(JSON.stringify(query.ids));
    }
    if (query.status) {
      where.push("status = ?");
      params.push(query.status);
    }
    if (query.owner === null) where.push("owner IS NULL");
    else if (query.owner !== undefined) {
      where.push("owner = ?");
      params.push(query.owner);
    }
    if (query.metadata) {
      where.push(`${CONTAINS_FUNCTION}(metadata, ?)`);
      params.push(JSON.stringify(query.metadata));
    }
    if (query.values) {
      where.push(`${CONTAINS_FUNCTION}(COALESCE("values", '{}'), ?)`);
      params.push(JSON.stringify(query.values));
    }
    return { where: where.length > 0 ? `WHERE ${where.join(" AND ")}` : "", params };
  }

  /** The total of a search whose page had `found` threads: a short page that is not past the end tells it; otherwise it is counted. */
  function pageTotal(query: Omit<ThreadQuery, "fields">, found: number): number {
    const pageTellsTotal = found < query.limit && (found > 0 || query.offset === 0);
    return pageTellsTotal ? query.offset + found : countThreads(query);
  }

  /**
   * The number of threads matching `query`. Counts are kept while the file is unchanged: `PRAGMA data_version`
   * moves when another connection commits (the checkpointer's, a run worker thread's, another process's) and
   * `total_changes()` when this one writes, so a client polling an idle server's thread list (DeerFlow's
   * sidebar, every 5 s) is not answered by counting every thread again.
   */
  function countThreads(query: ThreadFilter): number {
    const { where, params } = threadFilter(query);
    const version = `${dataVersion.get()}:${totalChanges.get()}`;
    if (version !== countsVersion) {
      counts.clear();
      countsVersion = version;
    }
    const key = `${where}\n${JSON.stringify(params)}`;
    let count = counts.get(key);
    if (count === undefined) {
      count = searchStatement<{ n: number }>(`SELECT count(*) AS n FROM server_threads ${where}`).get(...params)!.n;
      if (counts.size >= MAX_KEPT_COUNTS) counts.clear();
      counts.set(key, count);
    }
    return count;
  }

  /** Checks a run quota and counts the run (the user store's migration made `deerflow_usage`). */
  const admit = (quota: RunQuota, superseded: number) => {
    const active = db
      .prepare<[string], { n: number }>(
        "SELECT count(*) AS n FROM server_runs r JOIN server_threads t ON t.thread_id = r.thread_id WHERE t.owner = ? AND r.status IN ('pending', 'running')",
      )
      .get(quota.owner)!.n;
    const usage = db
      .prepare<[string, string], { runs: number; tokens: number }>(
        "SELECT runs, tokens FROM deerflow_usage WHERE user_id = ? AND day = ?",
      )
      .get(quota.owner, quota.day);
    quota.check({
      activeRuns: active - superseded,
      runsToday: usage?.runs ?? 0,
      tokensToday: usage?.tokens ?? 0,
    });
    db.prepare(
      "INSERT INTO deerflow_usage (user_id, day, runs) VALUES (?, ?, 1) ON CONFLICT (user_id, day) DO UPDATE SET runs = runs + 1",
    ).run(quota.owner, quota.day);
  };

  // Synchronous, so the strategy check, the quota check and the insert are one step in this process.
  const insertWithStrategy = db.transaction(
    (run: RunRecord, quota: RunQuota | undefined, thread: ThreadPatch | undefined): RunRecord[] => {
      const active = activeRuns.all(run.thread_id).map(toRun);
      const superseded: RunRecord[] = [];
      if (active.length > 0) {
        if (run.multitask_strategy === "reject") throw new ThreadBusyError(run.thread_id);
        if (run.multitask_strategy === "interrupt" || run.multitask_strategy === "rollback") {
          for (const old of active) {
            if (old.status === "running") superseded.push(old);
            else if (run.multitask_strategy === "rollback") deleteRun.run(old.run_id);
            else setRunStatus.run("interrupted", now(), old.run_id);
          }
        }
      }
      if (quota) admit(quota, superseded.length);
      insertRun.run({ ...run, metadata: JSON.stringify(run.metadata), kwargs: JSON.stringify(run.kwargs) });
      if (thread) patchThreadRow(run.thread_id, thread);
      return superseded;
    },
  );

  const patchRun = db.transaction((runId: string, patch: Parameters<RunStore["update"]>[1]): RunRecord | null => {
    const row = getRun.get(runId);
    if (!row) return null;
    const run = toRun(row);
    const next = {
      ...run,
      status: patch.status ?? run.status,
      kwargs: patch.kwargs ? { ...run.kwargs, ...patch.kwargs } : run.kwargs,
      updated_at: now(),
    };
    updateRun.run(next.status, JSON.stringify(next.kwargs), next.updated_at, runId);
    return next;
  });

  const runs: RunStore = {
    async insert(run, quota, thread) {
      return { superseded: insertWithStrategy.immediate(run, quota, thread) };
    },
    async get(runId) {
      const row = getRun.get(runId);
      return row ? toRun(row) : null;
    },
    async list(threadId, options) {
      const rows = options.status
        ? db
            .prepare<[string, string, number, number], RunRow>(
              "SELECT * FROM server_runs WHERE thread_id = ? AND status = ? ORDER BY seq DESC LIMIT ? OFFSET ?",
            )
            .all(threadId, options.status, options.limit, options.offset)
        : db
            .prepare<[string, number, number], RunRow>(
              "SELECT * FROM server_runs WHERE thread_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?",
            )
            .all(threadId, options.limit, options.offset);
      return rows.map(toRun);
    },
    async active(threadId) {
      return activeRuns.all(threadId).map(toRun);
    },
    async update(runId, patch) {
      return patchRun.immediate(runId, patch);
    },
    async delete(runId) {
      return deleteRun.run(runId).changes > 0;
    },
    async deleteForThread(threadId) {
      db.prepare("DELETE FROM server_runs WHERE thread_id = ?").run(threadId);
    },
    async settle(runId, end) {
      // The local queue has no owners to fence (`end.owner` is a shared queue's).
      return settleRun.immediate(runId, end);
    },
  };

  /** The run's update, then its thread's, the thread busy while it has other active runs. */
  const settleRun = db.transaction((runId: string, end: RunEnd): { others: number } | null => {
    const run = patchRun(runId, { status: end.status, kwargs: end.kwargs });
    if (!run) return null;
    const others = activeRuns.all(run.thread_id).filter((other) => other.run_id !== runId).length;
    patchThreadRow(run.thread_id, { ...end.thread, status: end.thread.status ?? (others > 0 ? "busy" : "idle") });
    return { others };
  });

  /** Marks the run running with its attempt counted, and its thread busy. */
  const claimTx = db.transaction((): RunRecord | null => {
    const row = claimable.get(now());
    if (!row) return null;
    const run = toRun({ ...row, status: "running" });
    run.kwargs = { ...run.kwargs, attempt: (run.kwargs.attempt ?? 0) + 1 };
    updateRun.run("running", JSON.stringify(run.kwargs), now(), row.run_id);
    patchThreadRow(run.thread_id, { status: "busy" });
    return run;
  });

  return {
    threads,
    runs,
    claim: () => claimTx.immediate(),
    requeueRunning() {
      const rows = db.prepare<[], RunRow>("SELECT * FROM server_runs WHERE status = 'running' ORDER BY seq").all();
      db.prepare("UPDATE server_runs SET status = 'pending' WHERE status = 'running'").run();
      return rows.map((row) => toRun({ ...row, status: "pending" }));
    },
    rollbackCheckpoints(threadId, checkpointId) {
      db.transaction(() => {
        for (const table of ["checkpoints", "writes"]) {
          if (!tableExists(table)) continue;
          if (checkpointId === null) db.prepare(`DELETE FROM ${table} WHERE thread_id = ?`).run(threadId);
          // Checkpoint ids are time-ordered (UUIDv6), so "after" is a string comparison.
          else db.prepare(`DELETE FROM ${table} WHERE thread_id = ? AND checkpoint_id > ?`).run(threadId, checkpointId);
        }
      })();
    },
    deleteThreadState(threadId) {
      db.transaction(() => {
        for (const table of ["checkpoints", "writes", "history_archive"]) {
          if (tableExists(table)) db.prepare(`DELETE FROM ${table} WHERE thread_id = ?`).run(threadId);
        }
        if (!tableExists("history_search")) return;
        // The full-text index has external content: each row leaves it by a 'delete' with its old text.
        if (tableExists("history_fts")) {
          db.prepare(
            `INSERT INTO history_fts (history_fts, rowid, text) SELECT 'delete', id, text FROM history_search WHERE thread_id = ? AND text <> ''`,
          ).run(threadId);
        }
        db.prepare("DELETE FROM history_search WHERE thread_id = ?").run(threadId);
      })();
    },
    copyThreadState(fromThreadId, toThreadId) {
      const columns: Record<string, string> = {
        checkpoints: "checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata",
        writes: "checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value",
        history_archive: "seq, kind, message_id, payload",
      };
      db.transaction(() => {
        for (const [table, list] of Object.entries(columns)) {
          if (!tableExists(table)) continue;
          db.prepare(
            `INSERT INTO ${table} (thread_id, ${list}) SELECT ?, ${list} FROM ${table} WHERE thread_id = ?`,
          ).run(toThreadId, fromThreadId);
        }
        // The copy's compacted messages stay searchable: its own index rows, then their full-text entries.
        if (!tableExists("history_search")) return;
        db.prepare(
          "INSERT INTO history_search (thread_id, seq, turn, role, text) SELECT ?, seq, turn, role, text FROM history_search WHERE thread_id = ? ORDER BY seq",
        ).run(toThreadId, fromThreadId);
        if (tableExists("history_fts")) {
          db.prepare(
            "INSERT INTO history_fts (rowid, text) SELECT id, text FROM history_search WHERE thread_id = ? AND text <> ''",
          ).run(toThreadId);
        }
      })();
    },
    close() {
      if (db.open) db.close();
    },
  };
}
