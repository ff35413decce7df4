import assert from "node:assert/strict";
import { test } from "node:test";
import { createTempHome } from "@deerflow/harness/testing";
import Database from "better-sqlite3";
import { openSqliteRunStores } from "./sqlite-store.js";

/** `server_threads` as files written before migration threads-json-1 hold it (with the owner column). */
const OLD_THREADS = `
CREATE TABLE server_threads (
  thread_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, state_updated_at TEXT NOT NULL,
  metadata TEXT NOT NULL, status TEXT NOT NULL, "values" TEXT, interrupts TEXT NOT NULL, error TEXT, owner TEXT
);
CREATE INDEX server_threads_owner ON server_threads (owner);
`;

test("a file from before threads-json-1 keeps its threads, and searches answer them as the API writes them", async (t) => {
  const home = createTempHome();
  t.after(() => home.cleanup());
  const file = `${home.path}/threads.db`;
  const old = new Database(file);
  old.exec(OLD_THREADS);
  const insert = old.prepare("INSERT INTO server_threads VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert.run(
    "a",
    "2026-01-01T00:00:00.000Z",
    "2026-01-02T00:00:00.000Z",
    "2026-01-02T00:00:00.000Z",
    '{"title":"A"}',
    "interrupted",
    '{"messages":[{"content":"hi\\n"}]}',
    '{"t":[{"id":"i"}]}',
    'it "failed"',
    null,
  );
  insert.run(
    "b",
    "2026-01-01T00:00:01.000Z",
    "2026-01-01T00:00:01.000Z",
    "2026-01-01T00:00:01.000Z",
    "{}",
    "idle",
    null,
    "{}",
    null,
    "bob",
  );
  old.close();

  for (const pass of ["migrated", "opened again"]) {
    const stores = openSqliteRunStores(file);
    try {
      const a = await stores.threads.get("a");
      assert.deepEqual(
        a,
        {
          thread_id: "a",
          created_at: "2026-01-01T00:00:00.000Z",
          updated_at: "2026-01-02T00:00:00.000Z",
          state_updated_at: "2026-01-02T00:00:00.000Z",
          metadata: { title: "A" },
          status: "interrupted",
          values: { messages: [{ content: "hi\n" }] },
          interrupts: { t: [{ id: "i" }] },
          error: 'it "failed"',
          owner: null,
        },
        pass,
      );
      const query = { limit: 10, offset: 0, sort_by: "created_at", sort_order: "desc" } as const;
      const { owner: _owner, ...shown } = a!;
      assert.deepEqual(
        await stores.threads.searchJson({ ...query, owner: null }),
        {
          threads: [JSON.stringify({ ...shown, config: {} })],
          total: 1,
        },
        pass,
      );
      assert.deepEqual(
        (await stores.threads.searchJson({ ...query, owner: "bob" })).threads.map((text) => JSON.parse(text).thread_id),
        ["b"],
      );
      // A change to a thread changes its answer too.
      await stores.threads.patch("b", { status: "busy", values: { n: 1 } });
      const [b] = (await stores.threads.searchJson({ ...query, owner: "bob" })).threads;
      assert.equal(JSON.parse(b!).status, "busy");
      assert.deepEqual(JSON.parse(b!).values, { n: 1 });
    } finally {
      stores.close();
    }
  }
  const db = new Database(file);
  const plan = db
    .prepare(
      "EXPLAIN QUERY PLAN SELECT json_head FROM server_threads WHERE owner = 'bob' ORDER BY owner DESC, updated_at DESC, thread_id DESC LIMIT 5",
    )
    .all() as { detail: string }[];
  assert.match(
    plan.map((step) => step.detail).join("\n"),
    /USING (COVERING )?INDEX server_threads_owner_updated/,
    "the page is read from the index",
  );
  db.close();
});

test("a run starts and settles on a thread whose stored values are not JSON, and its settle mends them", async (t) => {
  const home = createTempHome();
  t.after(() => home.cleanup());
  const file = `${home.path}/threads.db`;
  const stores = openSqliteRunStores(file);
  t.after(() => stores.close());
  await stores.threads.create("t", { title: "T" }, "raise");
  // Written outside the server: the claim and the run's request only change the thread's status.
  const raw = new Database(file);
  raw.prepare(`UPDATE server_threads SET "values" = '{"messages": [' WHERE thread_id = 't'`).run();
  raw.close();
  const at = new Date().toISOString();
  await stores.runs.insert(
    {
      run_id: "r",
      thread_id: "t",
      assistant_id: "a",
      created_at: at,
      updated_at: at,
      status: "pending",
      metadata: {},
      multitask_strategy: "reject",
      kwargs: { input: null, stream_mode: ["values"] } as never,
    },
    undefined,
    { metadata: { graph_id: "lead_agent" }, status: "busy" },
  );
  assert.equal(stores.claim()?.run_id, "r");
  await stores.runs.settle("r", {
    status: "success",
    kwargs: {},
    thread: { values: { messages: [] }, interrupts: {}, error: null },
  });
  const thread = await stores.threads.get("t");
  assert.deepEqual(
    { status: thread?.status, values: thread?.values, metadata: thread?.metadata },
    { status: "idle", values: { messages: [] }, metadata: { title: "T", graph_id: "lead_agent" } },
  );
});
