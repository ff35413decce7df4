/**
 * Checkpoint retention from the CLI: a finished `deerflow run` keeps one checkpoint per run by default,
 * and `deerflow threads prune` applies a policy to threads saved under another one, reporting what it
 * freed, without losing what `deerflow history` shows.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, test } from "node:test";
import Database from "better-sqlite3";
import { CLI, deerflow } from "./run-cli.js";
import { createTempHome, startFakeOpenAIServer } from "@deerflow/harness/testing";

before(() => {
  assert.ok(existsSync(CLI), `build the CLI first (npm run build): ${CLI} is missing`);
});

const threadOf = (stderr: string) => /thread: ([\w-]+)/.exec(stderr)?.[1];

async function twoRuns(retention: string | null) {
  const dir = createTempHome({ prefix: "df-prune-" });
  const server = await startFakeOpenAIServer({ script: [{ content: "First answer." }, { content: "Second answer." }] });
  writeFileSync(
    path.join(dir.path, "config.yaml"),
    `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk-test, base_url: '${server.url}', max_retries: 0}\nmemory: {enabled: false}\ntitle: {enabled: false}\n${retention ? `checkpoints: {retention: ${retention}}\n` : ""}`,
  );
  const first = await deerflow(dir.path, ["run", "Remember the word kumquat."]);
  assert.equal(first.code, 0, first.stderr);
  const thread = threadOf(first.stderr)!;
  const second = await deerflow(dir.path, ["run", "--thread", thread, "Which word?"]);
  assert.equal(second.code, 0, second.stderr);
  await server.close();
  const rows = () => {
    const db = new Database(path.join(dir.path, ".deer-flow", "checkpoints.sqlite"), { readonly: true });
    try {
      return (db.prepare("SELECT COUNT(*) AS n FROM checkpoints WHERE thread_id = ?").get(thread) as { n: number }).n;
    } finally {
      db.close();
    }
  };
  return { dir, thread, rows };
}

test("by default a finished run leaves one checkpoint; history shows the whole thread", async () => {
  const { dir, thread, rows } = await twoRuns(null);
  try {
    assert.equal(rows(), 5, "the thread's first input, and the first and last step of each run");
    const history = await deerflow(dir.path, ["history", "--thread", thread]);
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout, /kumquat[\s\S]*First answer\.[\s\S]*Which word\?[\s\S]*Second answer\./);
  } finally {
    dir.cleanup();
  }
});

test("threads prune applies a policy to threads saved under `all` and reports what it freed", async () => {
  const { dir, thread, rows } = await twoRuns("all");
  try {
    const before = rows();
    assert.ok(before > 4, `all kept every step (${before})`);
    const pruned = await deerflow(dir.path, ["threads", "prune", "--retention", "latest"]);
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(pruned.stderr, new RegExp(`Pruned ${before - 1} checkpoints from 1 threads \\(retention: latest\\)`));
    assert.equal(rows(), 1);
    const history = await deerflow(dir.path, ["history", "--thread", thread]);
    assert.match(history.stdout, /kumquat[\s\S]*Second answer\./);
    const bad = await deerflow(dir.path, ["threads", "prune", "--retention", "forever"]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /--retention takes one of runs, all, latest, got "forever"/);
  } finally {
    dir.cleanup();
  }
});
