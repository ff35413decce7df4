/**
 * checkpoints.retention: what a thread keeps once its runs are over, on the real SQLite store, that
 * every kept checkpoint's parent link names a kept checkpoint (forks and clients' branch trees follow
 * it), and that the thread still reads, time-travels, forks and continues afterwards.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { createHarness } from "../../src/agent/harness.js";
import { createSqlitePruner, keptCheckpointIds, planPrune } from "../../src/storage/retention.js";
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
  const rows = () => tree(harness.setup.store!.file).size;
  return { home, harness, agent, thread, reports, rows, config, chatModel };
}

type Row = { checkpoint_id: string; parent_checkpoint_id: string | null; metadata: Buffer };

/** Thread t1's root-namespace checkpoints in time order, read from the file. */
function checkpointRows(file: string): Row[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare(
        "SELECT checkpoint_id, parent_checkpoint_id, metadata FROM checkpoints WHERE thread_id = 't1' AND checkpoint_ns = '' ORDER BY checkpoint_id",
      )
      .all() as Row[];
  } finally {
    db.close();
  }
}

/** Thread t1's checkpoints: id → parent id. */
function tree(file: string): Map<string, string | null> {
  return new Map(checkpointRows(file).map((row) => [row.checkpoint_id, row.parent_checkpoint_id]));
}

/** The nearest ancestor of `id` in `before` (the tree before a prune) that `after` still has. */
function nearestKept(before: Map<string, string | null>, after: Map<string, string | null>, id: string) {
  let parent = before.get(id) ?? null;
  while (parent !== null && !after.has(parent)) parent = before.get(parent) ?? null;
  return parent;
}

const messageCount = (values: unknown) => (values as { messages?: unknown[] }).messages?.length ?? 0;

test("runs (the default) keeps one checkpoint per finished run; the thread reads, time-travels and continues", async () => {
  const { home, harness, agent, thread, reports, rows } = await playTurns("runs", 3);
  try {
    assert.equal(rows(), 7, "the thread's first input, and the first and last step of each run");
    assert.ok(
      reports.every((report) => report.checkpoints > 0),
      "each run's intermediate steps were removed",
    );
    const state = await agent.graph.getState(thread);
    assert.equal((state.values as { messages: unknown[] }).messages.length, 6);
    const points = [];
    for await (const snapshot of agent.graph.getStateHistory(thread)) points.push(messageCount(snapshot.values));
    assert.deepEqual(points, [6, 5, 4, 3, 2, 1, 0], "each run: its answer and its question, newest first; the root");
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
    assert.equal(rows.length, 17, "the root, and the first and last step of each of 8 runs");
    assert.equal(keptCheckpointIds(rows, "runs").size, rows.length, "a full prune would remove nothing more");
    assert.equal(planPrune(rows, "runs").relink.size, 0, "nor re-point anything");
    assert.equal(((await agent.graph.getState(thread)).values as { messages: unknown[] }).messages.length, 16);
  } finally {
    db.close();
    await harness.close();
    home.cleanup();
  }
});

test("runs: each kept checkpoint's parent is its nearest kept ancestor, and a second prune changes nothing", async () => {
  const { home, harness, agent, thread } = await playTurns("all", 3);
  const file = harness.setup.store!.file;
  try {
    const before = tree(file);
    const report = await createSqlitePruner(harness.setup.store!.db).pruneThread("t1", "runs");
    assert.ok(report.checkpoints > 0);
    const after = tree(file);
    for (const [id, parent] of after) assert.equal(parent, nearestKept(before, after, id), `parent of ${id}`);
    // The chain LangGraph reads, from the head to the root, walks the kept checkpoints in order.
    const chain = [];
    for (let snapshot = await agent.graph.getState(thread); ; ) {
      chain.push(messageCount(snapshot.values));
      if (!snapshot.parentConfig) break;
      snapshot = await agent.graph.getState(snapshot.parentConfig as never);
    }
    assert.deepEqual(chain, [6, 5, 4, 3, 2, 1, 0]);
    const fresh = createSqlitePruner(harness.setup.store!.db);
    assert.deepEqual(await fresh.pruneThread("t1", "runs"), { threads: 0, checkpoints: 0, writes: 0 });
    assert.deepEqual(tree(file), after);
  } finally {
    await harness.close();
    home.cleanup();
  }
});

test("latest: the head alone, with no parent", async () => {
  const { home, harness } = await playTurns("latest", 2);
  try {
    assert.deepEqual([...tree(harness.setup.store!.file).values()], [null]);
  } finally {
    await harness.close();
    home.cleanup();
  }
});

test("runs: after a regenerate and an edit (forks), the branches stay whole, and an incremental prune keeps what a full one keeps", async () => {
  const { home, harness, agent, thread, chatModel } = await playTurns("runs", 2);
  const file = harness.setup.store!.file;
  const history = async () => {
    const states = [];
    for await (const snapshot of agent.graph.getStateHistory(thread)) states.push(snapshot);
    return states;
  };
  const at = (snapshot: { config: unknown }) => ({
    configurable: {
      thread_id: "t1",
      checkpoint_id: (snapshot.config as { configurable: { checkpoint_id: string } }).configurable.checkpoint_id,
    },
  });
  try {
    // Regenerate the second answer: from the parent of the first state that shows it (what agent-chat-ui does).
    const states = await history();
    const answer = states.findLast((state) => messageCount(state.values) === 4)!;
    assert.ok(answer.parentConfig, "the answer's state names a parent");
    const regenerated = await agent.invoke(null as never, answer.parentConfig as never);
    assert.equal(messageCount(regenerated), 4, "the second turn was re-run, the first kept");
    await harness.afterRun("t1");
    // Edit the second question: from the parent of the first state that shows it.
    const question = (await history()).findLast((state) => messageCount(state.values) === 3)!;
    const edited = await agent.invoke(
      { messages: [{ role: "user", content: "turn 2, edited" }] },
      question.parentConfig as never,
    );
    assert.deepEqual(
      (edited as { messages: { content: unknown }[] }).messages.map((message) => message.content),
      ["turn 1", "noted", "turn 2, edited", "noted"],
    );
    await harness.afterRun("t1");
    assert.equal(chatModel.callCount, 4, "two turns, one regenerate, one edit: one model call each");

    const kept = tree(file);
    for (const parent of kept.values()) assert.ok(parent === null || kept.has(parent), `parent ${parent} exists`);
    const forks = [...kept.values()].filter((parent, index, all) => parent !== null && all.indexOf(parent) !== index);
    assert.equal(forks.length, 2, "two checkpoints with two children each: the second question, the first turn's end");
    const rows = checkpointRows(file);
    assert.equal(
      keptCheckpointIds(rows, "runs").size,
      rows.length,
      "a full prune keeps what the incremental ones kept",
    );
    assert.equal(planPrune(rows, "runs").relink.size, 0);
    // Each branch still reads and continues: the older answer, by its checkpoint.
    const answers = (await history()).filter((state) => messageCount(state.values) === 4);
    assert.equal(answers.length, 3, "the first answer to the second question, its regenerated one, the edited turn's");
    for (const answer of answers) assert.equal(messageCount((await agent.graph.getState(at(answer))).values), 4);
  } finally {
    await harness.close();
    home.cleanup();
  }
});

test("a home pruned before parent links were kept is repaired once when it is opened", async () => {
  const { home, harness, config, chatModel } = await playTurns("all", 3);
  const file = harness.setup.store!.file;
  const original = tree(file);
  await createSqlitePruner(harness.setup.store!.db).pruneThread("t1", "runs");
  const repaired = tree(file);
  await harness.close();
  // What older versions left: the kept checkpoints still naming the parents the prune deleted.
  const db = new Database(file);
  const broken = db.prepare(
    "UPDATE checkpoints SET parent_checkpoint_id = ? WHERE thread_id = 't1' AND checkpoint_id = ?",
  );
  for (const id of repaired.keys()) broken.run(original.get(id) ?? null, id);
  const root = [...repaired].find(([, parent]) => parent === null)![0];
  db.prepare("DELETE FROM checkpoints WHERE thread_id = 't1' AND checkpoint_id = ?").run(root);
  db.prepare("DELETE FROM deerflow_repairs").run();
  db.close();
  assert.ok(
    [...tree(file).values()].some((parent) => parent !== null && !repaired.has(parent)),
    "links are broken",
  );

  const reopened = await createHarness(config, { home: home.path, env: {}, chatModel, onWarning: () => {} });
  try {
    const after = tree(file);
    for (const [id, parent] of after) {
      // Older versions removed the first run's input checkpoint too: the first run's first step becomes the root.
      assert.equal(parent, repaired.get(id) === root ? null : repaired.get(id), `parent of ${id}`);
    }
    assert.deepEqual(await reopened.afterRun("t1"), { threads: 0, checkpoints: 0, writes: 0 }, "nothing more to prune");
  } finally {
    await reopened.close();
    home.cleanup();
  }
});
