/**
 * Large values once on Postgres: a big tool result is stored once in `large_values`, not in every
 * version of the `messages` channel, and reads back whole; `collectPostgresLargeValues` removes only
 * values nothing refers to. Its own database; skips with the reason without Postgres.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import type { BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import pg from "pg";
import { z } from "zod";
import { openPostgresDatabase } from "../../src/storage/postgres-database.js";
import { collectPostgresLargeValues, postgresLargeValues } from "../../src/storage/postgres-large-values.js";
import { testDatabase } from "../../src/testing/index.js";
import { callOnceThenAnswer, loopingModel, openLargeValueHarness } from "./large-values-setup.js";

test("Postgres: a 200 KB tool result is stored once across steps and turns, reads back whole, and is collected only once unused", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  // Random text: Postgres compresses long values, and a repetitive one would hide the copies.
  const big = `BEGIN ${randomBytes(100 * 1024).toString("hex")} END`;
  const fetchTool = tool(async () => big, { name: "fetch_doc", description: "Fetches the doc.", schema: z.object({}) });
  const { harness, agent, thread, close } = await openLargeValueHarness({
    chatModel: loopingModel(callOnceThenAnswer("fetch_doc", {}, "read it")),
    tools: [fetchTool],
    postgresUrl: db.url,
  });
  const sql = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    for (let turn = 1; turn <= 4; turn++)
      await agent.invoke({ messages: [{ role: "user", content: `turn ${turn}` }] }, thread);
    const bytes = async (query: string) => Number((await sql.query(query)).rows[0].n);
    const versions = await bytes("SELECT count(*) AS n FROM checkpoint_blobs WHERE channel = 'messages'");
    assert.ok(versions >= 8, `messages was written in ${versions} versions`);
    // Without the store-once path every version after the tool result carries its 200 KB.
    const blobBytes = await bytes("SELECT COALESCE(sum(pg_column_size(blob)), 0) AS n FROM checkpoint_blobs");
    assert.ok(blobBytes < 100 * 1024, `checkpoint blobs take ${blobBytes} bytes`);
    assert.equal(
      await bytes("SELECT count(*) AS n FROM large_values WHERE position('BEGIN ' IN body) > 0"),
      1,
      "the value once (the messages around it are stored once each, by reference to it)",
    );
    const stored = await bytes("SELECT count(*) AS n FROM large_values");
    const state = await agent.graph.getState(thread);
    const tools = (state.values as { messages: BaseMessage[] }).messages.filter((m) => m.getType() === "tool");
    assert.equal(tools[0]!.content, big, "the state reads back the full text");
    assert.equal(
      (await harness.history("t1")).filter((entry) => entry.kind === "message" && entry.message.content === big).length,
      1,
    );

    assert.deepEqual(
      await collectPostgresLargeValues(harness.setup.postgres!.pool, 0),
      { values: 0, bytes: 0 },
      "a value a checkpoint refers to stays",
    );
    await sql.query(
      "INSERT INTO large_values (hash, body, used_at) VALUES ('f'||repeat('0', 63), 'unused', now() - interval '2 hours'), ('e'||repeat('0', 63), 'just stored', now())",
    );
    const collected = await collectPostgresLargeValues(harness.setup.postgres!.pool);
    assert.equal(collected.values, 1, "only the unused value past the grace period goes");
    assert.ok(collected.bytes > 0);
    assert.equal(await bytes("SELECT count(*) AS n FROM large_values"), stored + 1);
  } finally {
    await close();
    await sql.end();
    await db.drop();
  }
});

test("Postgres: writes storing the same large values at once never deadlock, whatever order they list them in", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  const database = await openPostgresDatabase(db.url);
  try {
    const table = postgresLargeValues(database.pool);
    // A step's parallel writes (one per tool call) store the same messages; here in opposite orders.
    for (let round = 0; round < 20; round++) {
      const values = Array.from(
        { length: 6 },
        (_, i) => [`${round}-${i}`.padEnd(64, "0"), `body ${round} ${i}`] as const,
      );
      const forward = new Map(values);
      const backward = new Map([...values].reverse());
      await Promise.all([table.put(forward), table.put(backward), table.put(forward), table.put(backward)]);
    }
    const stored = await database.pool.query("SELECT count(*)::int AS n FROM large_values");
    assert.equal(stored.rows[0].n, 120);
  } finally {
    await database.close();
    await db.drop();
  }
});
