/**
 * Checkpoint retention from the CLI on Postgres (database.backend postgres): a finished `deerflow run`
 * keeps the first and last step of each run by default, and `deerflow threads prune` applies a policy to
 * threads saved under `all`, reporting the checkpoints and bytes it freed, with `deerflow history`
 * intact. Skips with the reason when no Postgres answers.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, test, type TestContext } from "node:test";
import pg from "pg";
import { createTempHome, startFakeOpenAIServer, testDatabase } from "@deerflow/harness/testing";
import { CLI, deerflow } from "./run-cli.js";

before(() => {
  assert.ok(existsSync(CLI), `build the CLI first (npm run build): ${CLI} is missing`);
});

const threadOf = (stderr: string) => /thread: ([\w-]+)/.exec(stderr)?.[1];

async function twoRuns(t: TestContext, retention: string | null) {
  const db = await testDatabase();
  if ("skip" in db) {
    t.skip(db.skip);
    return null;
  }
  const dir = createTempHome({ prefix: "df-pg-prune-" });
  const sql = new pg.Client({ connectionString: db.url });
  t.after(async () => {
    await sql.end().catch(() => {});
    dir.cleanup();
    await db.drop();
  });
  const server = await startFakeOpenAIServer({ script: [{ content: "First answer." }, { content: "Second answer." }] });
  writeFileSync(
    path.join(dir.path, "config.yaml"),
    `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk-test, base_url: '${server.url}', max_retries: 0}\nmemory: {enabled: false}\ntitle: {enabled: false}\ndatabase: {backend: postgres}\n${retention ? `checkpoints: {retention: ${retention}}\n` : ""}`,
  );
  const env = { DATABASE_URL: db.url };
  try {
    const first = await deerflow(dir.path, ["run", "Remember the word kumquat."], { env });
    assert.equal(first.code, 0, first.stderr);
    const thread = threadOf(first.stderr)!;
    const second = await deerflow(dir.path, ["run", "--thread", thread, "Which word?"], { env });
    assert.equal(second.code, 0, second.stderr);
  } finally {
    await server.close();
  }
  await sql.connect();
  const thread = (await sql.query("SELECT DISTINCT thread_id FROM checkpoints")).rows[0].thread_id as string;
  const rows = async (table = "checkpoints") =>
    Number((await sql.query(`SELECT count(*) AS n FROM ${table} WHERE thread_id = $1`, [thread])).rows[0].n);
  return { dir, env, thread, rows };
}

test("Postgres: by default a finished run leaves its first and last step; history shows the whole thread", async (t) => {
  const run = await twoRuns(t, null);
  if (!run) return;
  assert.equal(await run.rows(), 5, "the thread's first input, and the first and last step of each run");
  const history = await deerflow(run.dir.path, ["history", "--thread", run.thread], { env: run.env });
  assert.equal(history.code, 0, history.stderr);
  assert.match(history.stdout, /kumquat[\s\S]*First answer\.[\s\S]*Which word\?[\s\S]*Second answer\./);
});

test("Postgres: threads prune applies a policy to threads saved under `all` and reports what it freed", async (t) => {
  const run = await twoRuns(t, "all");
  if (!run) return;
  const before = await run.rows();
  const blobsBefore = await run.rows("checkpoint_blobs");
  assert.ok(before > 4, `all kept every step (${before})`);
  const pruned = await deerflow(run.dir.path, ["threads", "prune", "--retention", "latest"], { env: run.env });
  assert.equal(pruned.code, 0, pruned.stderr);
  assert.match(
    pruned.stderr,
    new RegExp(
      `Pruned ${before - 1} checkpoints from 1 threads \\(retention: latest\\); \\d+\\.\\d (KiB|MiB) of rows freed in postgres://`,
    ),
  );
  assert.doesNotMatch(pruned.stderr, /; 0\.0 KiB/, "the freed rows are counted");
  assert.equal(await run.rows(), 1);
  assert.ok((await run.rows("checkpoint_blobs")) < blobsBefore, "values only pruned steps used are gone");
  const history = await deerflow(run.dir.path, ["history", "--thread", run.thread], { env: run.env });
  assert.equal(history.code, 0, history.stderr);
  assert.match(history.stdout, /kumquat[\s\S]*First answer\.[\s\S]*Which word\?[\s\S]*Second answer\./);
  const again = await deerflow(run.dir.path, ["threads", "prune"], { env: run.env });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /Pruned 0 checkpoints from 0 threads \(retention: all\)/);
});
