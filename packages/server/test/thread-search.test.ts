/**
 * `POST /threads/search` over more threads than a page, on SQLite and on Postgres (skipped with the reason
 * without it): filters, order (ties broken by thread id in the same direction), `offset`, the pagination
 * headers and `select`. On SQLite, a page is read without decoding the threads outside it, and `select`
 * reads only the columns it names. The answer is each thread as `GET /threads/{id}` writes it (on SQLite
 * byte for byte: the stored JSON is copied into it), sent with a Content-Length.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { testDatabase } from "@deerflow/harness/testing";
import type { Thread } from "@langchain/langgraph-sdk";
import Database from "better-sqlite3";
import pg from "pg";
import { startTestServer, type TestServer } from "./helpers.js";

const THREADS = 25;
/** The five newest threads, given one creation time below, so only the thread id orders them. */
const TIED = ["t-20", "t-21", "t-22", "t-23", "t-24"];
const TIE_SQL = (placeholder: (index: number) => string) =>
  `UPDATE server_threads SET created_at = ${placeholder(1)}, updated_at = ${placeholder(1)}, state_updated_at = ${placeholder(1)} WHERE thread_id IN (${TIED.map((_, index) => placeholder(index + 2)).join(", ")})`;
/** Writes a time to the TIED threads in the server's database. */
type Tie = (at: string) => Promise<void>;

/**
 * Creates the threads (odd ones in group "odd"), ties the five newest (same creation and update time),
 * then touches three of the even ones (their updated_at moves past the rest).
 */
async function seed(t: TestServer, tie: Tie): Promise<void> {
  for (let index = 0; index < THREADS; index += 1)
    await t.client.threads.create({
      threadId: `t-${String(index).padStart(2, "0")}`,
      metadata: { group: index % 2 === 0 ? "even" : "odd", index },
    });
  await tie((await t.client.threads.get("t-20")).created_at);
  for (const id of ["t-04", "t-00", "t-10"]) await t.client.threads.update(id, { metadata: { touched: true } });
}

/** The search as raw HTTP: the threads and the pagination headers. */
async function search(t: TestServer, body: Record<string, unknown>) {
  const response = await fetch(`${t.url}/threads/search`, { method: "POST", body: JSON.stringify(body) });
  assert.equal(response.status, 200, await response.clone().text());
  return {
    threads: (await response.json()) as Record<string, unknown>[],
    total: response.headers.get("x-pagination-total"),
    next: response.headers.get("x-pagination-next"),
  };
}

/** Every thread, read one at a time, ordered by `key` then thread id, newest first. */
async function expectedOrder(t: TestServer, key: "created_at" | "updated_at", group?: string): Promise<string[]> {
  const all: Thread[] = [];
  for (let index = 0; index < THREADS; index += 1)
    all.push(await t.client.threads.get(`t-${String(index).padStart(2, "0")}`));
  const compare = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);
  return all
    .filter((thread) => group === undefined || thread.metadata?.group === group)
    .sort((a, b) => compare(a[key], b[key]) || compare(a.thread_id, b.thread_id))
    .map((thread) => thread.thread_id);
}

/** Ties in the SQLite file the server has open (WAL lets a second connection write). */
const sqliteTie =
  (t: TestServer): Tie =>
  async (at) => {
    const file = new Database(t.harness.setup.store!.file);
    file.prepare(TIE_SQL(() => "?")).run(at, at, at, ...TIED);
    file.close();
  };

async function pagesAndTotals(t: TestServer, tie: Tie): Promise<void> {
  await seed(t, tie);
  const byUpdate = await expectedOrder(t, "updated_at");
  assert.deepEqual(byUpdate.slice(0, 3).sort(), ["t-00", "t-04", "t-10"], "the touched threads come first");
  assert.deepEqual(byUpdate.slice(3, 8), [...TIED].reverse(), "then the tied ones, by thread id");

  const first = await search(t, { limit: 10, sort_by: "updated_at", sort_order: "desc" });
  assert.deepEqual(
    first.threads.map((thread) => thread.thread_id),
    byUpdate.slice(0, 10),
  );
  assert.equal(first.total, String(THREADS));
  assert.equal(first.next, "10");
  const last = await search(t, { limit: 10, offset: 20, sort_by: "updated_at", sort_order: "desc" });
  assert.deepEqual(
    last.threads.map((thread) => thread.thread_id),
    byUpdate.slice(20),
  );
  assert.equal(last.total, String(THREADS), "a short last page tells the total");
  assert.equal(last.next, null);
  const past = await search(t, { limit: 10, offset: 40 });
  assert.deepEqual(past.threads, []);
  assert.equal(past.total, String(THREADS), "past the end, the total is still every match");

  const even = await expectedOrder(t, "created_at", "even");
  const page = await search(t, { metadata: { group: "even" }, limit: 4, offset: 4 });
  assert.deepEqual(
    page.threads.map((thread) => thread.thread_id),
    even.slice(4, 8),
    "metadata filter, newest created first, second page",
  );
  assert.equal(page.total, "13");
  assert.equal(page.next, "8");
  const ascending = await search(t, { metadata: { touched: true }, sort_by: "created_at", sort_order: "asc" });
  assert.deepEqual(
    ascending.threads.map((thread) => thread.thread_id),
    ["t-00", "t-04", "t-10"],
  );
  const picked = await search(t, { ids: ["t-03", "t-07", "nope"], status: "idle", sort_by: "thread_id" });
  assert.deepEqual(
    picked.threads.map((thread) => thread.thread_id),
    ["t-07", "t-03"],
  );
  assert.equal((await search(t, { ids: [] })).total, "0");
  const selected = await search(t, { select: ["thread_id", "metadata", "config"], limit: 1, sort_by: "thread_id" });
  assert.deepEqual(selected.threads, [{ thread_id: "t-24", metadata: { group: "even", index: 24 }, config: {} }]);
  assert.equal(await t.client.threads.count({ metadata: { group: "odd" } }), 12);
}

test("threads.search on SQLite: pages in order with ties by thread id, totals past the end, filters, select", async () => {
  const t = await startTestServer();
  try {
    await pagesAndTotals(t, sqliteTie(t));
  } finally {
    await t.close();
  }
});

test("threads.search on Postgres: the same pages, totals, filters and select", async (context) => {
  const db = await testDatabase();
  if ("skip" in db) return context.skip(db.skip);
  const t = await startTestServer({ yaml: `database: {backend: postgres, url: '${db.url}'}` });
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  try {
    await pagesAndTotals(t, async (at) => {
      await pool.query(
        TIE_SQL((index) => `$${index}`),
        [at, ...TIED],
      );
    });
  } finally {
    await pool.end();
    await t.close();
    await db.drop();
  }
});

test("threads.search on SQLite reads the returned page only, and only the selected columns", async () => {
  const t = await startTestServer();
  try {
    await seed(t, sqliteTie(t));
    // The oldest thread's cached values become unreadable: only a search that reads that column fails on them.
    const file = new Database(t.harness.setup.store!.file);
    file.prepare(`UPDATE server_threads SET "values" = 'not json' WHERE thread_id = 't-01'`).run();
    file.close();

    const newest = await search(t, { limit: 5, sort_by: "created_at", sort_order: "desc" });
    assert.equal(newest.threads.length, 5);
    assert.equal(newest.total, String(THREADS));
    const all = await search(t, { limit: 100, select: ["thread_id", "status"] });
    assert.equal(all.threads.length, THREADS);
    assert.deepEqual(Object.keys(all.threads[0]!), ["thread_id", "status"]);
    const broken = await fetch(`${t.url}/threads/search`, { method: "POST", body: JSON.stringify({ limit: 100 }) });
    assert.equal(broken.status, 500, "reading the broken column still fails (the test's premise)");
  } finally {
    await t.close();
  }
});

/** What a run leaves on a thread, written as the stores write it (`JSON.stringify`). */
const RUN_LEFT = {
  values: JSON.stringify({ messages: [{ type: "ai", content: 'quotes " and\nlines, ünïcödé ✓' }], title: "T" }),
  interrupts: JSON.stringify({ "task-1": [{ value: { question: "ok?" }, id: "i-1" }] }),
  error: 'failed: "boom"\n\t\u0001',
};
const RUN_LEFT_SQL = (placeholder: (index: number) => string, jsonb: string) =>
  `UPDATE server_threads SET status = 'interrupted', "values" = ${placeholder(1)}${jsonb}, interrupts = ${placeholder(2)}${jsonb}, error = ${placeholder(3)} WHERE thread_id = 'w-1'`;

/** Creates three threads and gives the middle one what a run leaves; returns the search's answer and each GET's. */
async function searchAgainstGets(t: TestServer, leaveRun: () => Promise<void>) {
  for (const id of ["w-0", "w-1", "w-2"]) await t.client.threads.create({ threadId: id, metadata: { id, n: 1.5 } });
  await leaveRun();
  const response = await fetch(`${t.url}/threads/search`, {
    method: "POST",
    body: JSON.stringify({ sort_by: "thread_id", sort_order: "asc" }),
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.equal(response.headers.get("content-length"), String(Buffer.byteLength(await response.clone().text())));
  assert.equal(response.headers.get("transfer-encoding"), null, "one write with its length, not chunks");
  const gets = await Promise.all(
    ["w-0", "w-1", "w-2"].map(async (id) => (await fetch(`${t.url}/threads/${id}`)).text()),
  );
  return { text: await response.text(), gets };
}

test("threads.search on SQLite: the answer is the threads exactly as GET /threads/{id} writes them", async () => {
  const t = await startTestServer();
  try {
    const { text, gets } = await searchAgainstGets(t, async () => {
      const file = new Database(t.harness.setup.store!.file);
      file.prepare(RUN_LEFT_SQL(() => "?", "")).run(RUN_LEFT.values, RUN_LEFT.interrupts, RUN_LEFT.error);
      file.close();
    });
    assert.equal(text, `[${gets.join(",")}]`);
    const middle = (JSON.parse(text) as Thread[])[1]!;
    assert.deepEqual(Object.keys(middle), [
      "thread_id",
      "created_at",
      "updated_at",
      "state_updated_at",
      "metadata",
      "status",
      "values",
      "interrupts",
      "error",
      "config",
    ]);
    assert.deepEqual(middle.values, JSON.parse(RUN_LEFT.values));
    assert.equal(middle.error, RUN_LEFT.error);
  } finally {
    await t.close();
  }
});

test("threads.search on Postgres: the answer is the threads as GET /threads/{id} writes them", async (context) => {
  const db = await testDatabase();
  if ("skip" in db) return context.skip(db.skip);
  const t = await startTestServer({ yaml: `database: {backend: postgres, url: '${db.url}'}` });
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  try {
    const { text, gets } = await searchAgainstGets(t, async () => {
      await pool.query(
        RUN_LEFT_SQL((index) => `$${index}`, "::jsonb"),
        [RUN_LEFT.values, RUN_LEFT.interrupts, RUN_LEFT.error],
      );
    });
    // JSONB is written back with its own spacing, so the texts differ; the threads do not.
    assert.deepEqual(
      JSON.parse(text),
      gets.map((get) => JSON.parse(get)),
    );
    assert.deepEqual((JSON.parse(text) as Thread[])[1]!.values, JSON.parse(RUN_LEFT.values));
  } finally {
    await pool.end();
    await t.close();
    await db.drop();
  }
});

test("threads.search on SQLite: the total follows threads added or removed here and by another connection", async () => {
  const t = await startTestServer();
  try {
    for (let index = 0; index < 12; index += 1) await t.client.threads.create({ threadId: `c-${index}` });
    const total = async () => (await search(t, { limit: 5 })).total;
    assert.equal(await total(), "12");
    assert.equal(await total(), "12", "asked again with nothing changed");
    // Another connection to the file: the checkpointer's, a run worker thread's or another process's.
    const file = new Database(t.harness.setup.store!.file);
    try {
      file
        .prepare(
          `INSERT INTO server_threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, "values", interrupts, error, owner)
           VALUES ('c-other', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '{}', 'idle', NULL, '{}', NULL, NULL)`,
        )
        .run();
      assert.equal(await total(), "13");
      file.prepare("DELETE FROM server_threads WHERE thread_id = 'c-other'").run();
      assert.equal(await total(), "12");
    } finally {
      file.close();
    }
    await t.client.threads.create({ threadId: "c-new" });
    assert.equal(await total(), "13");
    await t.client.threads.delete("c-0");
    await t.client.threads.delete("c-1");
    assert.equal(await total(), "11");
    assert.equal(await t.client.threads.count(), 11);
  } finally {
    await t.close();
  }
});
