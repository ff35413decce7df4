import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import pg from "pg";
import { openPostgresDatabase, type PostgresDatabase } from "../storage/postgres-database.js";
import { testDatabase } from "../testing/postgres.js";
import { createHistoryReadTool } from "../tools/history-read.js";
import { createSearchHistoryTool } from "../tools/search-history.js";
import { PASSAGE_CHARS } from "./history-search.js";
import { createPostgresHistoryArchive } from "./postgres-history-archive.js";

const info = (summary: string) => ({ compactedAt: "2026-01-02T03:04:05.000Z", summary });

/**
 * A migrated fresh database with a way to open more pools (other processes, as far as the database can
 * tell), all closed and the database dropped after the test; null (skipped, reason printed) without Postgres.
 */
async function migratedDatabase(t: TestContext): Promise<(PostgresDatabase & { otherPool(): pg.Pool }) | null> {
  const created = await testDatabase();
  if ("skip" in created) {
    t.skip(created.skip);
    return null;
  }
  const db = await openPostgresDatabase(created.url);
  const pools: pg.Pool[] = [];
  t.after(async () => {
    for (const pool of pools) await pool.end();
    await db.close();
    await created.drop();
  });
  const otherPool = () => {
    const pool = new pg.Pool({ connectionString: created.url });
    // The database is dropped WITH (FORCE) after the test; a connection still closing then is terminated,
    // which an unwatched pool would raise as an uncaught error (as the harness's own pool does not).
    pool.on("error", () => {});
    pools.push(pool);
    return pool;
  };
  return Object.assign(db, { otherPool });
}

test("Postgres archive: messages come back in order with a marker per batch, re-appends are no-ops, another pool sees them, delete removes them", async (t) => {
  const db = await migratedDatabase(t);
  if (!db) return;
  const archive = createPostgresHistoryArchive(db.pool);
  const call = new AIMessage({
    id: "a1",
    content: "",
    tool_calls: [{ id: "c1", name: "bash", args: { command: "ls" } }],
  });
  assert.equal(
    await archive.append("t1", [new HumanMessage({ id: "h1", content: "list files" }), call], info("first")),
    2,
  );
  assert.equal(
    await archive.append("t1", [new HumanMessage({ id: "h1", content: "list files" })], info("again")),
    0,
    "already archived: no marker either",
  );
  assert.equal(
    await archive.append(
      "t1",
      [new ToolMessage({ id: "r1", content: "a.txt\u0000b.txt", tool_call_id: "c1", name: "bash" })],
      info("second"),
    ),
    1,
  );
  await archive.append("other", [new HumanMessage({ id: "x", content: "other thread" })], info("x"));

  // A second pool (another process, as far as the database can tell) reads the same thread.
  const entries = await createPostgresHistoryArchive(db.otherPool()).read("t1");
  assert.deepEqual(
    entries.map((e) => (e.kind === "message" ? e.message.id : `marker:${e.summary}:${e.messageCount}`)),
    ["h1", "a1", "marker:first:2", "r1", "marker:second:1"],
  );
  assert.deepEqual(
    entries.map((e) => e.seq),
    [1, 2, 3, 4, 5],
  );
  const revived = entries[1]!;
  assert.ok(revived.kind === "message" && revived.message instanceof AIMessage);
  assert.deepEqual(revived.message.tool_calls?.[0]?.args, { command: "ls" });
  const tool = entries[3]!;
  assert.ok(
    tool.kind === "message" && tool.message.content === "a.txt\u0000b.txt",
    "a NUL character survives the round trip",
  );
  assert.deepEqual(await archive.read("unknown"), []);

  assert.equal(await archive.hasArchive("t1"), true);
  await archive.delete("t1");
  assert.deepEqual(await archive.read("t1"), []);
  assert.equal(await archive.hasArchive("t1"), false);
  assert.deepEqual(await archive.search("t1", "files", 5), []);
  assert.equal((await archive.read("other")).length, 2, "other threads are untouched");
});

test("Postgres archive: two writers on one thread at once never share a sequence number", async (t) => {
  const db = await migratedDatabase(t);
  if (!db) return;
  const [a, b] = [createPostgresHistoryArchive(db.pool), createPostgresHistoryArchive(db.otherPool())];
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      (i % 2 ? a : b).append("t", [new HumanMessage({ id: `m${i}`, content: `message ${i}` })], info(`s${i}`)),
    ),
  );
  const entries = await a.read("t");
  assert.equal(entries.length, 20);
  assert.deepEqual(
    entries.map((e) => e.seq),
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
  entries.forEach((entry, index) =>
    assert.equal(entry.kind, index % 2 ? "compaction" : "message", "each message is followed by its own marker"),
  );
});

test("search_history on Postgres: finds a planted detail with turn and role, bounds passages, and answers bad input in one line", async (t) => {
  const db = await migratedDatabase(t);
  if (!db) return;
  const archive = createPostgresHistoryArchive(db.pool);
  const filler = "We reviewed the quarterly dashboards and nothing stood out in particular. ".repeat(40);
  await archive.append(
    "t1",
    [
      new HumanMessage({ id: "h1", content: "Hello, let's plan the launch." }),
      new AIMessage({ id: "a1", content: "Sure." }),
      new HumanMessage({ id: "h2", content: "The staging database password is rotated every Tuesday by Margarethe." }),
      new AIMessage({
        id: "a2",
        content: "",
        tool_calls: [{ id: "c1", name: "bash", args: { command: "echo deploy-zebra-42" } }],
      }),
      new ToolMessage({ id: "r1", content: "deploy-zebra-42", tool_call_id: "c1", name: "bash" }),
      new HumanMessage({ id: "h3", content: `${filler}The rollback window is exactly 17 minutes. ${filler}` }),
    ],
    info("s"),
  );
  await archive.append(
    "other",
    [new HumanMessage({ id: "x1", content: "Margarethe is on another thread" })],
    info("s"),
  );
  const tool = createSearchHistoryTool(archive);
  const call = (args: { query: string; limit?: number }, threadId = "t1") =>
    tool.invoke(args, { configurable: { thread_id: threadId } }) as Promise<string>;

  const found = await call({ query: "who rotates the staging password?" });
  assert.match(
    found,
    /^\[1\] message \d+, turn 2, user:\nThe staging database password is rotated every Tuesday by Margarethe\./,
  );
  assert.doesNotMatch(found, /another thread/, "only this thread's archive");
  assert.match(await call({ query: "zebra" }), /turn 2, (assistant|tool):[\s\S]*deploy-zebra-42/);
  const long = await archive.search("t1", "rollback window minutes", 5);
  assert.equal(long[0]!.turn, 3);
  assert.match(long[0]!.passage, /rollback window is exactly 17 minutes/);
  assert.ok(long[0]!.passage.length <= PASSAGE_CHARS, "a long message gives a bounded passage around the match");
  const read = (await createHistoryReadTool(archive).invoke(
    { from: long[0]!.seq - 1, to: long[0]!.seq },
    { configurable: { thread_id: "t1" } },
  )) as string;
  assert.match(read, /^message \d+, turn 2, tool:\ndeploy-zebra-42\n\nmessage \d+, turn 3, user:\n/);
  assert.match(read, /rollback window is exactly 17 minutes/);

  assert.match(await call({ query: "unrelatedword" }), /^No archived message matches "unrelatedword"/);
  assert.match(
    await call({ query: "the and of" }),
    /^No archived message matches "the and of"/,
    "stop words alone match nothing",
  );
  assert.match(await call({ query: "   " }), /^Error: search_history needs a query/);
  assert.match(
    await call({ query: "x".repeat(5000) }),
    /^Error: the query is 5000 characters; search_history takes at most 500/,
  );
  assert.match(await call({ query: "password" }, "fresh"), /^No earlier messages are archived for this thread/);
  const many = await call({ query: "the a let's plan launch sure staging deploy zebra margarethe rollback" });
  assert.ok(many.split(/^\[\d\] /m).length - 1 <= 5, "at most five passages");
  for (const answer of [found, many]) assert.ok(answer.length < 5 * (PASSAGE_CHARS + 40), "bounded output");
});

test("Postgres archive on a database without its tables reads as empty (a reader that does not migrate)", async (t) => {
  const created = await testDatabase();
  if ("skip" in created) return t.skip(created.skip);
  const pool = new pg.Pool({ connectionString: created.url });
  try {
    const archive = createPostgresHistoryArchive(pool);
    assert.deepEqual(await archive.read("t"), []);
    assert.equal(await archive.hasArchive("t"), false);
    assert.deepEqual(await archive.search("t", "anything", 5), []);
    await archive.delete("t");
    const tool = createSearchHistoryTool(archive);
    assert.match(
      String(await tool.invoke({ query: "anything" }, { configurable: { thread_id: "t" } })),
      /^No earlier messages are archived for this thread/,
    );
  } finally {
    await pool.end();
    await created.drop();
  }
});
