/**
 * checkpoints.retention: what a thread keeps once its runs are over, on the real SQLite store, and
 * that the thread still reads, time-travels and continues afterwards.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { createHarness } from "../../src/agent/harness.js";
import { createSqlitePruner, keptCheckpointIds } from "../../src/storage/retention.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { createTempHome, ScriptedChatModel } from "../../src/testing/index.js";

async function playTurns(retention: string, turns: number) {
  const home = createTempHome();
  const config = parseConfigText(
    `sandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\ncheckpoints: {retention: ${retention}}\n`,
    { source: null, env: {} },
  );
  const chatModel = new ScriptedChatModel([{ content: "noted" }], { loop: true });
  const harness = await createHarness(config, { home: home.path, env: {}, chatModel, onWarning: () => {} });
  const agent = harness.agent();
  const thread = { configurable: { thread_id: "t1" } };
  const reports = [];
  for (let turn = 1; turn <= turns; turn++) {
    await agent.invoke({ messages: [{ role: "user", content: `turn ${turn}` }] }, thread);
    reports.push(await harness.afterRun("t1"));
  }
  const rows = () =>
    (
      new Database(harness.setup.store!.file, { readonly: true })
        .prepare("SELECT COUNT(*) AS n FROM checkpoints WHERE thread_id = 't1'")
        .get() as { n: number }
    ).n;
  return { home, harness, agent, thread, reports, rows };
}

test("runs (the default) keeps one checkpoint per finished run; the thread reads, time-travels and continues", async () => {
  const { home, harness, agent, thread, reports, rows } = await playTurns("runs", 3);
  try {
    assert.equal(rows(), 6, "first and last step of each run");
    assert.ok(
      reports.every((report) => report.checkpoints > 0),
      "each run's intermediate steps were removed",
    );
    const state = await agent.graph.getState(thread);
    assert.equal((state.values as { messages: unknown[] }).messages.length, 6);
    const points = [];
    for await (const snapshot of agent.graph.getStateHistory(thread))
      points.push((snapshot.values as { messages: unknown[] }).messages.length);
    assert.deepEqual(points, [6, 5, 4, 3, 2, 1], "each run: its answer and its question, newest first");
    await agent.invoke({ messages: [{ role: "user", content: "turn 4" }] }, thread);
    assert.equal(((await agent.graph.getState(thread)).values as { messages: unknown[] }).messages.length, 8);
    const history = await harness.history("t1");
    assert.equal(history.length, 8);
  } finally {
    await harness.close();
    home.cleanup();
  }
});

test("latest keeps only the head, all keeps every step", async () => {
  const latest = await playTurns("latest", 3);
  const all = await playTurns("all", 3);
  try {
    assert.equal(latest.rows(), 1);
    assert.equal(
      ((await latest.agent.graph.getState(latest.thread)).values as { messages: unknown[] }).messages.length,
      6,
    );
    assert.ok(all.rows() > 9, `all keeps every step (${all.rows()} rows)`);
    assert.ok(all.reports.every((report) => report.checkpoints === 0));
  } finally {
    for (const run of [latest, all]) {
      await run.harness.close();
      run.home.cleanup();
    }
  }
});

test("an unknown retention is a config error naming the choices", () => {
  assert.throws(
    () => parseConfigText("checkpoints: {retention: forever}\n", { source: null, env: {} }),
    /runs, all, latest/,
  );
});

test("runs: each prune reads only the checkpoints since the thread's last one, and keeps what a full prune keeps", async () => {
  const { home, harness, agent, thread } = await playTurns("all", 1);
  const file = harness.setup.store!.file;
  const db = new Database(file);
  // Counts the checkpoint rows each prune reads.
  const read: number[] = [];
  const counting = new Proxy(db, {
    get(target, key) {
      if (key !== "prepare") return Reflect.get(target, key, target);
      return (sql: string) => {
        const statement = target.prepare(sql);
        if (!sql.startsWith("SELECT checkpoint_id")) return statement;
        return new Proxy(statement, {
          get(inner, name) {
            if (name !== "all") return Reflect.get(inner, name, inner);
            return (...args: unknown[]) => {
              const rows = (inner.all as (...a: unknown[]) => unknown[])(...args);
              read.push(rows.length);
              return rows;
            };
          },
        });
      };
    },
  });
  try {
    const pruner = createSqlitePruner(counting);
    await pruner.pruneThread("t1", "runs");
    for (let turn = 2; turn <= 8; turn++) {
      await agent.invoke({ messages: [{ role: "user", content: `turn ${turn}` }] }, thread);
      await pruner.pruneThread("t1", "runs");
    }
    // A run's own steps and the head before it, not the whole thread: the same count at turn 8 as at turn 2.
    assert.ok(
      read.slice(1).every((count) => count === read[1]),
      `rows read per prune: ${read.join(", ")}`,
    );
    const rows = db
      .prepare(
        "SELECT checkpoint_id, parent_checkpoint_id, metadata FROM checkpoints WHERE thread_id = 't1' ORDER BY checkpoint_id",
      )
      .all() as Parameters<typeof keptCheckpointIds>[0];
    assert.equal(rows.length, 16, "first and last step of each of 8 runs");
    assert.equal(keptCheckpointIds(rows, "runs").size, rows.length, "a full prune would remove nothing more");
    assert.equal(((await agent.graph.getState(thread)).values as { messages: unknown[] }).messages.length, 16);
  } finally {
    db.close();
    await harness.close();
    home.cleanup();
  }
});
