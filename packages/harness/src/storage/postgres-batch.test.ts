import assert from "node:assert/strict";
import { test } from "node:test";
import pg from "pg";
import { testDatabase } from "../testing/postgres.js";
import { inlineParams, queryBatch, sqlLiteral } from "./postgres-batch.js";

test("inlined values come back from Postgres exactly as given, whatever quotes, backslashes or placeholders they hold", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  t.after(async () => {
    await client.end();
    await db.drop();
  });
  const tricky = ["it's", "a\\b", "$2 and $1", "'); DROP TABLE x; --", "日本語", ""];
  const results = await queryBatch(client, [
    "BEGIN",
    inlineParams("SELECT $1::text AS a, $2::text[] AS b, $3 AS c, $4 AS d, $5::int AS e", [
      tricky[2]!,
      [...tricky, null] as (string | null)[],
      null,
      true,
      42,
    ]),
    "COMMIT",
  ]);
  assert.equal(results.length, 3, "one result per statement, from one round trip");
  const row = results[1]!.rows[0];
  assert.equal(row.a, "$2 and $1", "a value's own text is not read for placeholders");
  assert.deepEqual(row.b, [...tricky, null]);
  assert.equal(row.c, null);
  assert.equal(row.d, true);
  assert.equal(row.e, 42);
  assert.equal(sqlLiteral([]), "ARRAY[]::text[]");
  assert.throws(() => inlineParams("SELECT $2", ["x"]), /\$2 has no value/);
  assert.throws(() => sqlLiteral(Number.NaN), /cannot be written/);
});
