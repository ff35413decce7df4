import assert from "node:assert/strict";
import { test } from "node:test";
import { testDatabase } from "../testing/postgres.js";
import { openPostgresDatabase } from "./postgres-database.js";
import { MAX_NAMED, StatementNames } from "./postgres-statements.js";

test("a text gets a name on its second use, the same on every later one, and none past the cap", () => {
  const names = new StatementNames();
  assert.equal(names.nameFor("SELECT $1"), undefined);
  const name = names.nameFor("SELECT $1");
  assert.ok(name);
  assert.equal(names.nameFor("SELECT $1"), name);
  assert.notEqual(names.nameFor("SELECT $2") ?? names.nameFor("SELECT $2"), name);
  for (let index = names.size; index < MAX_NAMED; index += 1) {
    names.nameFor(`SELECT ${index}`);
    names.nameFor(`SELECT ${index}`);
  }
  assert.equal(names.size, MAX_NAMED);
  assert.equal(names.nameFor("SELECT 'late'") ?? names.nameFor("SELECT 'late'"), undefined);
  assert.equal(names.nameFor("SELECT $1"), name, "names given before the cap stay");
});

test("the pool's connections parse a repeated statement once and keep it; one-off texts stay unnamed", async (t) => {
  const created = await testDatabase();
  if ("skip" in created) return t.skip(created.skip);
  t.after(() => created.drop());
  const db = await openPostgresDatabase(created.url);
  t.after(() => db.close());
  const client = await db.pool.connect();
  try {
    const repeated = "SELECT $1::int + 1 AS n";
    for (let value = 0; value < 3; value += 1)
      assert.equal((await client.query<{ n: number }>(repeated, [value])).rows[0]?.n, value + 1);
    await client.query("SELECT $1::text AS once", ["x"]);
    const prepared = await client.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements");
    const texts = prepared.rows.map((row) => row.statement);
    assert.ok(texts.includes(repeated), `prepared: ${texts.join(" | ")}`);
    assert.ok(!texts.some((text) => text.includes("AS once")));
  } finally {
    client.release();
  }
  // Through the pool itself too (its query borrows a connection).
  const viaPool = "SELECT $1::int * 2 AS n";
  for (let value = 0; value < 3; value += 1) assert.equal((await db.pool.query(viaPool, [value])).rows[0].n, value * 2);
});
