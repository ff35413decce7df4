/**
 * The CLI on a Postgres database (database.backend postgres): `run` checkpoints there, `threads` lists
 * and deletes there, `history` reads there, and the URL can come from DATABASE_URL. Skips with the
 * reason when no Postgres answers.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import pg from "pg";
import { createTempHome, testDatabase } from "@deerflow/harness/testing";
import { deerflow } from "./run-cli.js";

test("run, threads, history and threads delete work on the Postgres database", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  const dir = createTempHome({ prefix: "df-pg-cli-" });
  t.after(async () => {
    dir.cleanup();
    await db.drop();
  });
  writeFileSync(path.join(dir.path, "config.yaml"), "database: {backend: postgres}\nsandbox: {use: local}\n");
  const env = { DATABASE_URL: db.url };
  const run = await deerflow(dir.path, ["run", "Say hello"], { env });
  assert.equal(run.code, 0, run.stderr);

  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  try {
    const rows = await sql.query("SELECT DISTINCT thread_id FROM checkpoints");
    assert.equal(rows.rowCount, 1, "the run's checkpoints are in Postgres");
    const threadId = rows.rows[0].thread_id as string;

    const listed = await deerflow(dir.path, ["threads"], { env });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${threadId} .* \\d+ messages  Say hello`));
    const history = await deerflow(dir.path, ["history", "--thread", threadId], { env });
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout, /Say hello/);

    const removed = await deerflow(dir.path, ["threads", "delete", threadId], { env });
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal((await sql.query("SELECT 1 FROM checkpoints WHERE thread_id = $1", [threadId])).rowCount, 0);
    assert.match((await deerflow(dir.path, ["threads"], { env })).stdout, /No threads yet/);
  } finally {
    await sql.end();
  }
});

test("a thread another machine holds in the Postgres lease table is busy for `deerflow run`", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  const dir = createTempHome({ prefix: "df-pg-cli-" });
  t.after(async () => {
    dir.cleanup();
    await db.drop();
  });
  writeFileSync(path.join(dir.path, "config.yaml"), "database: {backend: postgres}\nsandbox: {use: local}\n");
  const env = { DATABASE_URL: db.url };
  const first = await deerflow(dir.path, ["run", "Say hello"], { env });
  assert.equal(first.code, 0, first.stderr);

  // A server on machine-b runs thread "shared" (its lease row, renewed for the next minute).
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  try {
    await sql.query(
      "INSERT INTO thread_leases (thread_id, owner_pid, host, token, since, expires) VALUES ('shared', 4242, 'machine-b', 'x', $1, $2)",
      [Date.now(), Date.now() + 60_000],
    );
    const busy = await deerflow(dir.path, ["run", "--thread", "shared", "Say hello"], { env });
    assert.notEqual(busy.code, 0);
    assert.match(busy.stderr, /Thread shared is busy \(pid 4242 on machine-b/);
    const deleting = await deerflow(dir.path, ["threads", "delete", "shared"], { env });
    assert.notEqual(deleting.code, 0);
    assert.match(deleting.stderr, /Thread shared is busy \(pid 4242 on machine-b/);
    await sql.query("DELETE FROM thread_leases");
    const free = await deerflow(dir.path, ["run", "--thread", "shared", "Say hello"], { env });
    assert.equal(free.code, 0, free.stderr);
    assert.equal((await sql.query("SELECT 1 FROM thread_leases")).rowCount, 0, "the run released its lease");
  } finally {
    await sql.end();
  }
});
