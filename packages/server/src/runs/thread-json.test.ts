import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { THREAD_FIELDS } from "./store-rows.js";
import { threadJsonFields, threadJsonSql } from "./thread-json.js";

/** Two threads as the stores hold them: strings, and JSON written by `JSON.stringify`. */
const THREADS = [
  {
    thread_id: "t-1",
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-02T00:00:00.000Z",
    state_updated_at: "2026-01-03T00:00:00.000Z",
    metadata: { title: 'Hi "there" \\ back', n: [1, 2.5, -3e-7, null], ünï: "çödé ✓ 😀" },
    status: "interrupted",
    values: { messages: [{ type: "human", content: "line\nbreak\ttab\u0001\u001f\u007f\u2028" }] },
    interrupts: { "task-1": [{ value: "why?", id: "i-1" }] },
    error: 'failed: "quoted"\nand\ttabbed \u0000 \b\f\r',
  },
  {
    thread_id: "t-2",
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    state_updated_at: "2026-01-01T00:00:00.000Z",
    metadata: {},
    status: "idle",
    values: null,
    interrupts: {},
    error: null,
  },
];

/** The threads in an SQLite table shaped like `server_threads`, each read back through `threadJsonSql(fields)`. */
function writtenBySqlite(fields: readonly string[]): string[] {
  const db = new Database(":memory:");
  db.exec(
    `CREATE TABLE server_threads (thread_id TEXT, created_at TEXT, updated_at TEXT, state_updated_at TEXT, metadata TEXT, status TEXT, "values" TEXT, interrupts TEXT, error TEXT, owner TEXT)`,
  );
  const insert = db.prepare("INSERT INTO server_threads VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'someone')");
  for (const thread of THREADS)
    insert.run(
      thread.thread_id,
      thread.created_at,
      thread.updated_at,
      thread.state_updated_at,
      JSON.stringify(thread.metadata),
      thread.status,
      thread.values === null ? null : JSON.stringify(thread.values),
      JSON.stringify(thread.interrupts),
      thread.error,
    );
  const rows = db
    .prepare(`SELECT ${threadJsonSql(fields, "sqlite")} FROM server_threads ORDER BY thread_id`)
    .pluck()
    .all() as string[];
  db.close();
  return rows;
}

test("threadJsonFields: every field and config; with select, the known ones in the client's order, once each", () => {
  assert.deepEqual(threadJsonFields(), [...THREAD_FIELDS, "config"]);
  assert.deepEqual(threadJsonFields([]), [...THREAD_FIELDS, "config"], "an empty select is no select");
  assert.deepEqual(threadJsonFields(["values", "thread_id", "owner", "config", "nope", "values"]), [
    "values",
    "thread_id",
    "config",
  ]);
  assert.deepEqual(threadJsonFields(["owner"]), []);
});

test("threadJsonSql on SQLite writes the bytes JSON.stringify writes for the thread, escapes and key order included", () => {
  assert.deepEqual(
    writtenBySqlite(threadJsonFields()),
    THREADS.map((thread) => JSON.stringify({ ...thread, config: {} })),
  );
});

test("threadJsonSql with selected fields writes those, in that order; with none, an empty object", () => {
  assert.deepEqual(
    writtenBySqlite(["values", "thread_id", "config", "error"]),
    THREADS.map((thread) =>
      JSON.stringify({ values: thread.values, thread_id: thread.thread_id, config: {}, error: thread.error }),
    ),
  );
  assert.deepEqual(writtenBySqlite([]), ["{}", "{}"]);
  assert.deepEqual(writtenBySqlite(["owner"]), ["{}", "{}"], "the owner is never written");
});
