/**
 * The Postgres checkpointer's batched writes: a checkpoint with all its blobs is one statement and a
 * task's pending writes are one, the rows are exactly those the stock saver writes (so the stock saver
 * reads them back the same, and databases written before read as they did), and a guarded write whose
 * condition fails writes nothing. Its own database; skips with the reason without Postgres.
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import {
  type Checkpoint,
  type CheckpointMetadata,
  ERROR,
  emptyCheckpoint,
  INTERRUPT,
  type PendingWrite,
  uuid6,
} from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { createLargeValueSerde } from "../../src/storage/large-values.js";
import { migrate } from "../../src/storage/postgres-database.js";
import { postgresLargeValues } from "../../src/storage/postgres-large-values.js";
import { createPostgresSaver } from "../../src/storage/postgres-saver.js";
import { testDatabase } from "../../src/testing/index.js";

async function open(t: TestContext) {
  const db = await testDatabase();
  if ("skip" in db) {
    t.skip(db.skip);
    return null;
  }
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const lean = createPostgresSaver(pool);
  await migrate(pool, lean);
  // The stock saver with the same serializer (long strings and messages stored once): only the writes differ.
  const stock = new PostgresSaver(pool, createLargeValueSerde(postgresLargeValues(pool)));
  t.after(async () => {
    await pool.end();
    await db.drop();
  });
  return { pool, lean, stock };
}

/** Counts the statements `work` sends (every pool query runs on a pg Client). */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const original = pg.Client.prototype.query;
  const sent: string[] = [];
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    sent.push(typeof config === "string" ? config : String((config as { text?: string }).text));
    return (original as (...args: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof original;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = original;
  }
  return sent;
}

/** A checkpoint with messages (one long enough to be stored once), a number, and a channel left empty. */
function sampleCheckpoint(): { checkpoint: Checkpoint; versions: Record<string, number> } {
  const checkpoint = emptyCheckpoint();
  checkpoint.id = uuid6(-1);
  const versions = { messages: 3, count: 2, empty: 5 };
  checkpoint.channel_values = {
    messages: [
      new HumanMessage({ id: "h1", content: "hi" }),
      new AIMessage({ id: "a1", content: `a long answer ${"x".repeat(400)}` }),
    ],
    count: 7,
  };
  checkpoint.channel_versions = versions;
  checkpoint.versions_seen = { agent: { messages: 2 } };
  return { checkpoint, versions };
}

const metadata: CheckpointMetadata = { source: "loop", step: 1, parents: {} };

const writes: PendingWrite[] = [
  ["messages", [new AIMessage({ id: "a2", content: "next" })]],
  ["count", 8],
];

/** What a thread holds, row for row, without its thread id. */
async function rowsOf(pool: pg.Pool, threadId: string) {
  const rows = async (sql: string) => (await pool.query(sql, [threadId])).rows;
  return {
    checkpoints: await rows(
      "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints WHERE thread_id = $1 ORDER BY checkpoint_id",
    ),
    blobs: await rows(
      "SELECT checkpoint_ns, channel, version, type, blob FROM checkpoint_blobs WHERE thread_id = $1 ORDER BY channel, version",
    ),
    writes: await rows(
      "SELECT checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob FROM checkpoint_writes WHERE thread_id = $1 ORDER BY checkpoint_id, task_id, idx",
    ),
  };
}

/** A parent and a child checkpoint, written the same through each saver. */
const parent = sampleCheckpoint();
const child = sampleCheckpoint();
child.checkpoint.channel_values.count = 9;
child.checkpoint.channel_versions = { ...child.versions, count: 4 };

/** Writes the parent and child checkpoint and the same pending writes through `saver` to `threadId`. */
async function writeSample(saver: PostgresSaver, threadId: string) {
  const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
  const parentConfig = await saver.put(config, parent.checkpoint, metadata, parent.versions);
  const childConfig = await saver.put(parentConfig, child.checkpoint, { ...metadata, step: 2 }, { count: 4 });
  await saver.putWrites(childConfig, writes, "task-1");
  // Special channels replace what is at their index; the last of two goes in.
  await saver.putWrites(childConfig, [[ERROR, "first"]], "task-2");
  await saver.putWrites(
    childConfig,
    [
      [ERROR, "second"],
      [INTERRUPT, [{ value: "ask", id: "i1" }]],
    ],
    "task-2",
  );
  // Other channels never replace: the first write at an index stays.
  await saver.putWrites(childConfig, [["count", 10]], "task-1");
  return childConfig;
}

test("Postgres checkpointer: a checkpoint and its blobs are one statement, a task's writes one, no transaction", async (t) => {
  const f = await open(t);
  if (!f) return;
  const { checkpoint, versions } = sampleCheckpoint();
  const config = { configurable: { thread_id: "t1", checkpoint_ns: "" } };
  // The messages are stored once (large_values), in the checkpoint's own statement.
  const put = await statementsOf(() => f.lean.put(config, checkpoint, metadata, versions));
  assert.deepEqual(
    put.map((text) => text.match(/INSERT INTO \S+/g)),
    [["INSERT INTO large_values", 'INSERT INTO "public".checkpoint_blobs', 'INSERT INTO "public".checkpoints']],
    put.join("\n"),
  );
  assert.ok(
    Number((await f.pool.query("SELECT count(*) AS n FROM large_values")).rows[0].n) > 0,
    "its messages went in with it",
  );
  const next = { configurable: { ...config.configurable, checkpoint_id: checkpoint.id } };
  const written = await statementsOf(() => f.lean.putWrites(next, [...writes, ["other", 1]], "task-1"));
  assert.equal(written.length, 1, written.join("\n"));
  const stockPut = await statementsOf(() => f.stock.put(config, sampleCheckpoint().checkpoint, metadata, versions));
  assert.ok(stockPut.length >= 6, `the stock saver: ${stockPut.length} statements (one per blob, in a transaction)`);
});

test("Postgres checkpointer: batched writes leave the stock saver's rows, and the stock saver reads them back the same", async (t) => {
  const f = await open(t);
  if (!f) return;
  await writeSample(f.stock, "stock");
  const leanConfig = await writeSample(f.lean, "lean");
  assert.deepEqual(await rowsOf(f.pool, "lean"), await rowsOf(f.pool, "stock"));

  const read = async (saver: PostgresSaver, threadId: string) => {
    const tuples = [];
    for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) tuples.push(tuple);
    return JSON.parse(JSON.stringify(tuples).replaceAll(`"${threadId}"`, '"thread"'));
  };
  assert.deepEqual(await read(f.stock, "lean"), await read(f.stock, "stock"));
  const tuple = await f.stock.getTuple(leanConfig);
  assert.ok(tuple);
  assert.deepEqual(
    (tuple.checkpoint.channel_values.messages as HumanMessage[]).map((message) => message.content),
    ["hi", `a long answer ${"x".repeat(400)}`],
  );
  assert.equal(tuple.checkpoint.channel_values.count, 9);
  assert.equal("empty" in tuple.checkpoint.channel_values, false, "a channel without a value stays empty");
  assert.deepEqual(
    tuple.pendingWrites?.map(([task, channel, value]) => [task, channel, JSON.parse(JSON.stringify(value))]),
    [
      ["task-1", "messages", JSON.parse(JSON.stringify(writes[0]![1]))],
      ["task-1", "count", 8],
      ["task-2", INTERRUPT, [{ value: "ask", id: "i1" }]],
      ["task-2", ERROR, "second"],
    ],
    "in index order: special channels have negative indexes",
  );
});

test("Postgres checkpointer: a guarded write whose condition fails writes nothing and throws the guard's error", async (t) => {
  const f = await open(t);
  if (!f) return;
  const guard = (held: boolean) =>
    f.lean.guarded({ sql: "$1::boolean AND $2 = 'owner'", params: [held, "owner"], lost: () => new Error("not ours") });
  const { checkpoint, versions } = sampleCheckpoint();
  const config = { configurable: { thread_id: "t1", checkpoint_ns: "" } };
  await assert.rejects(guard(false).put(config, checkpoint, metadata, versions), /not ours/);
  const next = { configurable: { ...config.configurable, checkpoint_id: checkpoint.id } };
  await assert.rejects(guard(false).putWrites(next, writes, "task-1"), /not ours/);
  assert.deepEqual(await rowsOf(f.pool, "t1"), { checkpoints: [], blobs: [], writes: [] });

  const statements = await statementsOf(async () => {
    await guard(true).put(config, checkpoint, metadata, versions);
    await guard(true).putWrites(next, writes, "task-1");
  });
  // The failed writes stored nothing, and left nothing remembered as stored: these store the messages again.
  assert.equal(statements.length, 2, "the guard and the large values cost no statement");
  const rows = await rowsOf(f.pool, "t1");
  assert.deepEqual(
    [rows.checkpoints.length, rows.blobs.length, rows.writes.length],
    [1, 3, 2],
    "checkpoint, its three blobs and the two writes",
  );
  assert.equal((await f.lean.getTuple(next))?.checkpoint.channel_values.count, 7, "the unguarded saver reads it");
});

test("Postgres checkpointer: a guard's rider is written in the first write's statement, and only with it", async (t) => {
  const f = await open(t);
  if (!f) return;
  await f.pool.query("CREATE TABLE owners (id text PRIMARY KEY, owner text, notes jsonb NOT NULL DEFAULT '{}')");
  await f.pool.query("INSERT INTO owners (id, owner) VALUES ('r1', 'me')");
  let pending: Record<string, unknown> | undefined = { started: true };
  let written = 0;
  // The rider's own WHERE clause is the guard, checked on the row it updates.
  const guarded = (owner: string) =>
    f.lean.guarded({
      sql: "EXISTS (SELECT 1 FROM owners WHERE id = $1 AND owner = $2)",
      params: ["r1", owner],
      lost: () => new Error("not ours"),
      rider: () =>
        pending && {
          sql: "UPDATE owners SET notes = notes || $3::jsonb WHERE id = $1 AND owner = $2 RETURNING 1",
          params: [JSON.stringify(pending)],
          written: () => {
            written += 1;
            pending = undefined;
          },
        },
    });
  const notes = async () => (await f.pool.query("SELECT notes FROM owners WHERE id = 'r1'")).rows[0].notes;
  const { checkpoint, versions } = sampleCheckpoint();
  const config = { configurable: { thread_id: "t1", checkpoint_ns: "" } };

  // Not the owner: neither the checkpoint nor the rider's update, and the rider stays pending.
  await assert.rejects(guarded("someone else").put(config, checkpoint, metadata, versions), /not ours/);
  assert.deepEqual(await rowsOf(f.pool, "t1"), { checkpoints: [], blobs: [], writes: [] });
  assert.deepEqual([await notes(), written], [{}, 0]);

  const statements = await statementsOf(async () => {
    const next = await guarded("me").put(config, checkpoint, metadata, versions);
    await guarded("me").putWrites(next, writes, "task-1");
  });
  assert.equal(statements.length, 2, "the rider costs no statement");
  assert.match(statements[0]!, /^WITH rider AS \(UPDATE owners/);
  assert.doesNotMatch(statements[1]!, /rider/, "written once: the next write carries no rider");
  assert.deepEqual([await notes(), written], [{ started: true }, 1]);
  assert.equal((await rowsOf(f.pool, "t1")).checkpoints.length, 1);
});
