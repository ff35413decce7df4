import assert from "node:assert/strict";
import { test } from "node:test";
import pg from "pg";
import { ConfigError, HarnessError } from "../errors.js";
import { testDatabase } from "../testing/postgres.js";
import { MIGRATIONS, openPostgresDatabase, resolveDatabaseUrl, SCHEMA_VERSION } from "./postgres-database.js";

test("resolveDatabaseUrl: url, then postgres_url, then DATABASE_URL; a malformed one names its key", () => {
  assert.equal(
    resolveDatabaseUrl({ url: "postgres://a@h/db", postgres_url: "postgres://b@h/db" }, {}),
    "postgres://a@h/db",
  );
  assert.equal(resolveDatabaseUrl({ url: null, postgres_url: "postgres://b@h/db" }, {}), "postgres://b@h/db");
  assert.equal(
    resolveDatabaseUrl({ url: null, postgres_url: null }, { DATABASE_URL: "postgresql://c@h/db" }),
    "postgresql://c@h/db",
  );
  assert.throws(
    () => resolveDatabaseUrl({ url: "not a url" }, {}),
    (error: Error) => error instanceof ConfigError && /database\.url is not a URL/.test(error.message),
  );
  assert.throws(
    () => resolveDatabaseUrl({ url: null, postgres_url: "mysql://x@h/db" }, {}),
    /database\.postgres_url must start with postgres:\/\//,
  );
  assert.throws(() => resolveDatabaseUrl({ url: null }, {}), /no database\.url is set/);
});

test("an unreachable server and wrong credentials fail with what to do", async (t) => {
  await assert.rejects(
    openPostgresDatabase("postgres://postgres@127.0.0.1:1/none"),
    (error: Error) =>
      error instanceof HarnessError &&
      /Cannot reach Postgres at postgres:\/\/postgres@127\.0\.0\.1:1\/none/.test(error.message),
  );
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  t.after(() => db.drop());
  const url = new URL(db.url);
  url.pathname = "/deerflow_no_such_db";
  await assert.rejects(openPostgresDatabase(url.toString()), /does not exist.*Create it/);
});

test("two processes migrating an empty database at once: one applies, both end at the newest version", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  t.after(() => db.drop());
  const [a, b] = await Promise.all([openPostgresDatabase(db.url), openPostgresDatabase(db.url)]);
  try {
    const rows = (await a.pool.query("SELECT version FROM deerflow_schema ORDER BY version")).rows.map(
      (row) => row.version,
    );
    assert.deepEqual(
      rows,
      MIGRATIONS.map((migration) => migration.version),
    );
    assert.equal(await b.healthy(), true);
    const tables = (await a.pool.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).rows.map(
      (row) => row.tablename,
    );
    for (const table of ["server_runs", "run_events", "checkpoints", "history_archive"])
      assert.ok(tables.includes(table), table);
  } finally {
    await a.close();
    await b.close();
  }
});

test("a schema from a newer version is refused with a clear message", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  t.after(() => db.drop());
  const first = await openPostgresDatabase(db.url);
  await first.pool.query("INSERT INTO deerflow_schema (version, name) VALUES ($1, 'from the future')", [
    SCHEMA_VERSION + 1,
  ]);
  await first.close();
  await assert.rejects(
    openPostgresDatabase(db.url),
    new RegExp(`schema is version ${SCHEMA_VERSION + 1}, newer than this DeerFlow.ts knows.*Upgrade`),
  );
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.end();
});
