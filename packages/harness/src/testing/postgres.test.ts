import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import pg from "pg";
import { adminDatabaseUrl, DATABASE_RUN_VARIABLE, dropRunDatabases, testDatabase } from "./postgres.js";

async function query(url: string, text: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

test("under npm test a run's databases are shared: one given back is taken again, emptied; the run's end drops them all", async (t) => {
  const run = `t${randomBytes(4).toString("hex")}`;
  const outer = process.env[DATABASE_RUN_VARIABLE];
  process.env[DATABASE_RUN_VARIABLE] = run;
  try {
    const first = await testDatabase();
    if ("skip" in first) return t.skip(first.skip);
    await query(first.url, "CREATE TABLE left_behind (x int); CREATE SCHEMA extra; CREATE TABLE extra.t (y int)");
    const second = await testDatabase();
    if ("skip" in second) return t.skip(second.skip);
    assert.notEqual(second.url, first.url, "a database another test holds is not taken");

    // A session the test left open does not keep the database from being given back.
    const straggler = new pg.Client({ connectionString: first.url });
    straggler.on("error", () => {});
    await straggler.connect();
    await first.drop();
    const third = await testDatabase();
    if ("skip" in third) return t.skip(third.skip);
    assert.equal(third.url, first.url, "the database given back is taken again");
    const schemas = await query(
      third.url,
      "SELECT nspname FROM pg_namespace WHERE nspname <> 'information_schema' AND NOT starts_with(nspname, 'pg_')",
    );
    assert.deepEqual(schemas, [{ nspname: "public" }]);
    assert.deepEqual(await query(third.url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"), []);
    await query(third.url, "CREATE TABLE left_behind (x int)");

    await second.drop();
    await third.drop();
    assert.equal(await dropRunDatabases(run), 2);
    const left = await query(
      adminDatabaseUrl(),
      `SELECT datname FROM pg_database WHERE datname LIKE 'deerflow_test_${run}_%'`,
    );
    assert.deepEqual(left, []);
  } finally {
    if (outer === undefined) delete process.env[DATABASE_RUN_VARIABLE];
    else process.env[DATABASE_RUN_VARIABLE] = outer;
    await dropRunDatabases(run);
  }
});
