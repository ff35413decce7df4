/**
 * The CLI on a Postgres database (database.backend postgres): `run` checkpoints there, `threads` lists
 * and deletes there, `history` reads there (compacted messages from the archive there too), and the URL
 * can come from DATABASE_URL. Skips with the reason when no Postgres answers.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type TestContext, test } from "node:test";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { createHistoryArchive, createPostgresHistoryArchive } from "@deerflow/harness";
import pg from "pg";
import { createTempHome, startFakeOpenAIServer, testDatabase } from "@deerflow/harness/testing";
import { summaryOrAnswer } from "./fake-projects.js";
import { deerflow } from "./run-cli.js";

/**
 * A fresh database and a temp home whose config.yaml names Postgres and the local sandbox, with the
 * `env` that names the database through DATABASE_URL; both removed after the test. Null (the test
 * skipped, the reason printed) when no Postgres answers.
 */
async function postgresHome(t: TestContext) {
  const db = await testDatabase();
  if ("skip" in db) {
    t.skip(db.skip);
    return null;
  }
  const dir = createTempHome({ prefix: "df-pg-cli-" });
  t.after(async () => {
    dir.cleanup();
    await db.drop();
  });
  writeFileSync(path.join(dir.path, "config.yaml"), "database: {backend: postgres}\nsandbox: {use: local}\n");
  return { dir, db, env: { DATABASE_URL: db.url } };
}

test("run, threads, history and threads delete work on the Postgres database", async (t) => {
  const home = await postgresHome(t);
  if (!home) return;
  const { dir, db, env } = home;
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
  const home = await postgresHome(t);
  if (!home) return;
  const { dir, db, env } = home;
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

test("`deerflow history` on Postgres shows compacted messages from the archive there; `threads delete` removes them", async (t) => {
  const home = await postgresHome(t);
  if (!home) return;
  const { dir, db, env } = home;
  const server = await startFakeOpenAIServer({
    strict: true,
    script: summaryOrAnswer,
  });
  t.after(() => server.close());
  writeFileSync(
    path.join(dir.path, "config.yaml"),
    `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk, base_url: '${server.url}', max_retries: 0}\n` +
      "database: {backend: postgres}\nsandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\n" +
      "summarization: {trigger: {type: messages, value: 4}, keep: {type: messages, value: 2}}\n",
  );
  const first = await deerflow(dir.path, ["run", "Question one"], { env });
  assert.equal(first.code, 0, first.stderr);
  const thread = /thread: ([\w-]+)/.exec(first.stderr)![1]!;
  for (const question of ["Question two", "Question three", "Question four"]) {
    const next = await deerflow(dir.path, ["run", "--thread", thread, question], { env });
    assert.equal(next.code, 0, next.stderr);
  }

  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  try {
    assert.ok(
      ((await sql.query("SELECT 1 FROM history_archive WHERE thread_id = $1", [thread])).rowCount ?? 0) > 0,
      "the archive is in Postgres",
    );
    assert.ok(!existsSync(path.join(dir.path, ".deer-flow", "checkpoints.sqlite")), "no SQLite file under the home");
    const history = await deerflow(dir.path, ["history", "--thread", thread], { env });
    assert.equal(history.code, 0, history.stderr);
    for (const question of ["Question one", "Question two", "Question three", "Question four"])
      assert.match(history.stdout, new RegExp(`user: ${question}`));
    assert.match(history.stdout, /──── compacted \d+ messages at /);
    assert.match(
      (await deerflow(dir.path, ["history", "--thread", thread, "--summaries"], { env })).stdout,
      /summary: Summary \d+\./,
    );

    const removed = await deerflow(dir.path, ["threads", "delete", thread], { env });
    assert.equal(removed.code, 0, removed.stderr);
    for (const table of ["history_archive", "history_search"]) {
      assert.equal(
        (await sql.query(`SELECT 1 FROM ${table} WHERE thread_id = $1`, [thread])).rowCount,
        0,
        `${table} rows removed`,
      );
    }
    assert.ok(!existsSync(path.join(dir.path, ".deer-flow", "checkpoints.sqlite")), "still no SQLite file");
    assert.notEqual((await deerflow(dir.path, ["history", "--thread", thread], { env })).code, 0);
    assert.equal(server.rejected.length, 0);
  } finally {
    await sql.end();
  }
});

test("`deerflow db migrate` moves an archive left in the home's SQLite file into Postgres, once", async (t) => {
  const home = await postgresHome(t);
  if (!home) return;
  const { dir, db, env } = home;
  // What an earlier build on Postgres wrote: the compacted messages in {home}/checkpoints.sqlite.
  mkdirSync(path.join(dir.path, ".deer-flow"), { recursive: true });
  const old = createHistoryArchive(path.join(dir.path, ".deer-flow", "checkpoints.sqlite"));
  old.append(
    "old-thread",
    [
      new HumanMessage({ id: "h1", content: "The vault combination is 4471." }),
      new AIMessage({ id: "a1", content: "Noted." }),
    ],
    { compactedAt: "2026-01-02T03:04:05.000Z", summary: "S" },
  );
  old.close();

  const migrated = await deerflow(dir.path, ["db", "migrate"], { env });
  assert.equal(migrated.code, 0, migrated.stderr);
  assert.match(migrated.stdout, /Migrated .* to schema version \d+/);
  assert.match(
    migrated.stdout,
    /Moved the history archive of 1 thread\(s\) \(2 compacted messages\) from .*checkpoints\.sqlite into the database\./,
  );
  const history = await deerflow(dir.path, ["history", "--thread", "old-thread"], { env });
  assert.equal(history.code, 0, history.stderr);
  assert.match(
    history.stdout,
    /user: The vault combination is 4471\.\n\nassistant: Noted\.\n\n──── compacted 2 messages at 2026-01-02T03:04:05\.000Z ────/,
  );

  const pool = new pg.Pool({ connectionString: db.url });
  try {
    assert.match(
      (await createPostgresHistoryArchive(pool).search("old-thread", "vault combination", 5))[0]!.passage,
      /4471/,
      "searchable after the move",
    );
  } finally {
    await pool.end();
  }
  const again = await deerflow(dir.path, ["db", "migrate"], { env });
  assert.equal(again.code, 0, again.stderr);
  assert.match(
    again.stdout,
    /nothing to do\.\nLeft 1 thread\(s\) of .* alone: the database already has their archive\.\n$/,
  );
});
