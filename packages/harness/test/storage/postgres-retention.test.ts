/**
 * checkpoints.retention on Postgres (database.backend postgres): the same checkpoints stay as on
 * SQLite, re-pointed to their nearest kept ancestor, the channel values only dropped checkpoints used go
 * with them, and a thread still reads, time-travels, continues and resumes a failed run afterwards;
 * migration 5 repairs the parent links older versions left broken. Each test has its own database and
 * skips with the reason without Postgres.
 */
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { tool } from "@langchain/core/tools";
import pg from "pg";
import { z } from "zod";
import { createHarness } from "../../src/agent/harness.js";
import { migrate, SCHEMA_VERSION } from "../../src/storage/postgres-database.js";
import { createPostgresPruner } from "../../src/storage/postgres-retention.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { createTempHome, ScriptedChatModel, type ScriptStep, testDatabase } from "../../src/testing/index.js";

async function open(
  t: TestContext,
  retention: string,
  steps: ScriptStep[] = [{ content: "noted" }],
  options: Parameters<typeof createHarness>[1] = {},
) {
  const db = await testDatabase();
  if ("skip" in db) {
    t.skip(db.skip);
    return null;
  }
  const home = createTempHome();
  const config = parseConfigText(
    `sandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\ncheckpoints: {retention: ${retention}}\ndatabase: {backend: postgres, url: '${db.url}'}\n`,
    { source: null, env: {} },
  );
  const chatModel = new ScriptedChatModel(steps, { loop: true });
  const harness = await createHarness(config, { home: home.path, env: {}, chatModel, onWarning: () => {}, ...options });
  const sql = new pg.Pool({ connectionString: db.url, max: 2 });
  const count = async (table: string) =>
    Number((await sql.query(`SELECT count(*) AS n FROM ${table} WHERE thread_id = 't1'`)).rows[0].n);
  // Blobs no checkpoint names, and versions a checkpoint names that have no blob.
  const orphans = async () =>
    Number(
      (
        await sql.query(`SELECT count(*) AS n FROM checkpoint_blobs b WHERE thread_id = 't1' AND NOT EXISTS
        (SELECT 1 FROM checkpoints c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)`)
      ).rows[0].n,
    );
  const missing = async () =>
    Number(
      (
        await sql.query(`SELECT count(*) AS n FROM checkpoints c, jsonb_each_text(c.checkpoint -> 'channel_versions') v WHERE c.thread_id = 't1' AND NOT EXISTS
        (SELECT 1 FROM checkpoint_blobs b WHERE b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns AND b.channel = v.key AND b.version = v.value)`)
      ).rows[0].n,
    );
  // Thread t1's root-namespace checkpoints: id → parent id.
  const tree = async () =>
    new Map(
      (
        await sql.query<{ id: string; parent: string | null }>(
          "SELECT checkpoint_id AS id, parent_checkpoint_id AS parent FROM checkpoints WHERE thread_id = 't1' AND checkpoint_ns = '' ORDER BY checkpoint_id",
        )
      ).rows.map((row) => [row.id, row.parent]),
    );
  const close = async () => {
    await harness.close();
    await sql.end();
    home.cleanup();
    await db.drop();
  };
  return {
    harness,
    agent: harness.agent(),
    thread: { configurable: { thread_id: "t1" } },
    count,
    orphans,
    missing,
    tree,
    sql,
    config,
    chatModel,
    home,
    close,
  };
}

async function play(run: NonNullable<Awaited<ReturnType<typeof open>>>, turns: number) {
  const reports = [];
  for (let turn = 1; turn <= turns; turn++) {
    await run.agent.invoke({ messages: [{ role: "user", content: `turn ${turn}` }] }, run.thread);
    reports.push(await run.harness.afterRun("t1"));
  }
  return reports;
}

const messagesOf = (values: unknown) => (values as { messages?: unknown[] }).messages?.length ?? 0;

test("Postgres, runs (the default): first and last step of each run, their values and nothing else; the thread reads, time-travels and continues", async (t) => {
  const run = await open(t, "runs");
  if (!run) return;
  try {
    const reports = await play(run, 3);
    assert.equal(
      await run.count("checkpoints"),
      7,
      "the thread's first input, and the first and last step of each run",
    );
    const kept = await run.tree();
    for (const [id, parent] of kept) assert.ok(parent === null || kept.has(parent), `the parent of ${id} is kept`);
    assert.ok(
      reports.every((report) => report.checkpoints > 0 && (report.blobs ?? 0) > 0 && (report.bytes ?? 0) > 0),
      JSON.stringify(reports),
    );
    assert.equal(await run.orphans(), 0, "no channel value that no checkpoint names");
    assert.equal(await run.missing(), 0, "every kept checkpoint's values are there");
    assert.equal(messagesOf((await run.agent.graph.getState(run.thread)).values), 6);
    const points = [];
    for await (const snapshot of run.agent.graph.getStateHistory(run.thread)) points.push(messagesOf(snapshot.values));
    assert.deepEqual(points, [6, 5, 4, 3, 2, 1, 0], "each run: its answer and its question, newest first; the root");
    await run.agent.invoke({ messages: [{ role: "user", content: "turn 4" }] }, run.thread);
    assert.equal(messagesOf((await run.agent.graph.getState(run.thread)).values), 8);
    assert.equal((await run.harness.history("t1")).length, 8);
    const again = await run.harness.afterRun("t1");
    assert.ok(again.checkpoints > 0);
    assert.equal(await run.count("checkpoints"), 9);
    assert.deepEqual(
      await run.harness.afterRun("t1"),
      { threads: 0, checkpoints: 0, writes: 0, blobs: 0, bytes: 0 },
      "a second prune finds nothing",
    );
  } finally {
    await run.close();
  }
});

test("Postgres, latest keeps only the head and its values", async (t) => {
  const run = await open(t, "latest");
  if (!run) return;
  try {
    await play(run, 3);
    assert.equal(await run.count("checkpoints"), 1);
    assert.equal(await run.orphans(), 0);
    assert.equal(await run.missing(), 0);
    assert.equal(messagesOf((await run.agent.graph.getState(run.thread)).values), 6);
    await run.agent.invoke({ messages: [{ role: "user", content: "turn 4" }] }, run.thread);
    assert.equal(messagesOf((await run.agent.graph.getState(run.thread)).values), 8);
  } finally {
    await run.close();
  }
});

test("Postgres, all keeps every step", async (t) => {
  const run = await open(t, "all");
  if (!run) return;
  try {
    const reports = await play(run, 3);
    assert.ok((await run.count("checkpoints")) > 9, `all keeps every step (${await run.count("checkpoints")} rows)`);
    assert.ok(reports.every((report) => report.checkpoints === 0));
  } finally {
    await run.close();
  }
});

test("Postgres, default retention: a run that failed after a tool ran resumes from the failed step, without running the tool again", async (t) => {
  let resumed = false;
  let toolRuns = 0;
  const note = tool(
    async () => {
      toolRuns += 1;
      return "written down";
    },
    { name: "note", description: "Writes a note.", schema: z.object({ text: z.string() }) },
  );
  // The model calls the tool, then is down until the test brings it back.
  const step: ScriptStep = (messages) => {
    const last = messages.at(-1)!;
    if (last.getType() === "human" && String(last.content).startsWith("note"))
      return { tool_calls: [{ name: "note", args: { text: "x" } }] };
    if (last.getType() !== "tool") return { content: "ok" };
    if (!resumed) throw new Error("model endpoint down");
    return { content: "noted it" };
  };
  const run = await open(t, "runs", [step], { tools: [note] });
  if (!run) return;
  try {
    await play(run, 2);
    await assert.rejects(
      run.agent.invoke({ messages: [{ role: "user", content: "note this" }] }, run.thread),
      /model endpoint down/,
    );
    await run.harness.afterRun("t1");
    assert.equal(toolRuns, 1);
    resumed = true;
    const values = await run.agent.invoke(null, run.thread);
    assert.equal(toolRuns, 1, "the tool's result was kept, not run again");
    const messages = (values as { messages: { content: unknown; getType(): string }[] }).messages;
    assert.equal(messages.at(-1)!.content, "noted it");
    assert.deepEqual(
      messages.map((message) => message.getType()),
      ["human", "ai", "human", "ai", "human", "ai", "tool", "ai"],
    );
    await run.harness.afterRun("t1");
    assert.equal(await run.missing(), 0);
    assert.equal(await run.orphans(), 0);
  } finally {
    await run.close();
  }
});

test("Postgres, runs: each kept checkpoint's parent is its nearest kept ancestor; migration 5 repairs links older versions left broken", async (t) => {
  const run = await open(t, "all");
  if (!run) return;
  try {
    await play(run, 3);
    const before = await run.tree();
    const report = await createPostgresPruner(run.sql).pruneThread("t1", "runs");
    assert.ok(report.checkpoints > 0);
    const after = await run.tree();
    const nearestKept = (id: string) => {
      let parent = before.get(id) ?? null;
      while (parent !== null && !after.has(parent)) parent = before.get(parent) ?? null;
      return parent;
    };
    for (const [id, parent] of after) assert.equal(parent, nearestKept(id), `parent of ${id}`);
    assert.equal(await run.missing(), 0);

    // What older versions left: kept checkpoints naming the parents the prune deleted, the root input gone.
    const root = [...after].find(([, parent]) => parent === null)![0];
    for (const id of after.keys())
      await run.sql.query(
        "UPDATE checkpoints SET parent_checkpoint_id = $1 WHERE thread_id = 't1' AND checkpoint_id = $2",
        [before.get(id) ?? null, id],
      );
    await run.sql.query("DELETE FROM checkpoints WHERE thread_id = 't1' AND checkpoint_id = $1", [root]);
    // Back to version 4 (the later migrations are idempotent), so 5 runs again.
    await run.sql.query("DELETE FROM deerflow_schema WHERE version >= 5");
    const rerun = Array.from({ length: SCHEMA_VERSION - 4 }, (_, index) => 5 + index);
    assert.deepEqual(await migrate(run.sql), rerun, "5 and every later migration run again");
    for (const [id, parent] of await run.tree())
      assert.equal(parent, after.get(id) === root ? null : after.get(id), `repaired parent of ${id}`);
    assert.deepEqual(
      await createPostgresPruner(run.sql).pruneThread("t1", "runs"),
      { threads: 0, checkpoints: 0, writes: 0, blobs: 0, bytes: 0 },
      "nothing more to prune",
    );
  } finally {
    await run.close();
  }
});

test("Postgres: two branches forked from one checkpoint each read back their own values (a regenerate shows the new answer)", async (t) => {
  const run = await open(t, "all", [{ content: "answer 1" }, { content: "answer 2" }, { content: "answer 3" }]);
  if (!run) return;
  try {
    await play(run, 2);
    const history = [];
    for await (const snapshot of run.agent.graph.getStateHistory(run.thread)) history.push(snapshot);
    const answer = history.findLast((snapshot) => messagesOf(snapshot.values) === 4)!;
    // agent-chat-ui's regenerate: no input, from the parent of the first state that shows the answer.
    await run.agent.invoke(null as never, answer.parentConfig as never);
    const contents = (
      (await run.agent.graph.getState(run.thread)).values as { messages: { content: unknown }[] }
    ).messages.map((message) => message.content);
    assert.deepEqual(contents, ["turn 1", "answer 1", "turn 2", "answer 3"], "the head reads the regenerated answer");
    const original = await run.agent.graph.getState({
      configurable: { thread_id: "t1", checkpoint_id: answer.config.configurable!.checkpoint_id },
    });
    assert.equal((original.values as { messages: { content: unknown }[] }).messages.at(-1)!.content, "answer 2");
  } finally {
    await run.close();
  }
});

test("Postgres, a prune with a guard that fails removes nothing and says so; one that holds prunes as usual", async (t) => {
  const run = await open(t, "latest");
  if (!run) return;
  try {
    await run.agent.invoke({ messages: [{ role: "user", content: "turn 1" }] }, run.thread);
    const before = await run.count("checkpoints");
    assert.ok(before > 1);
    const pruner = createPostgresPruner(run.sql);
    const lost = await pruner.pruneThread("t1", "latest", { sql: "$1::text = 'someone else'", params: ["me"] });
    assert.deepEqual([lost.guard, lost.checkpoints, await run.count("checkpoints")], ["lost", 0, before]);
    const held = await pruner.pruneThread("t1", "latest", { sql: "$1::text = 'me'", params: ["me"] });
    assert.deepEqual([held.guard, held.checkpoints, await run.count("checkpoints")], ["held", before - 1, 1]);
    // Through the harness, as the server's worker calls it.
    await run.agent.invoke({ messages: [{ role: "user", content: "turn 2" }] }, run.thread);
    assert.equal((await run.harness.afterRun("t1", { sql: "false", params: [] })).guard, "lost");
    assert.ok((await run.count("checkpoints")) > 1);
  } finally {
    await run.close();
  }
});
