import assert from "node:assert/strict";
import { test } from "node:test";
import { emptyCheckpoint, TASKS } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { PreparedSqliteSaver } from "./sqlite-saver.js";

/** The same writes through `saver`; returns both tables' rows. */
async function write(saver: SqliteSaver, db: Database.Database) {
  const ts = "2026-01-01T00:00:00.000Z";
  const first = { ...emptyCheckpoint(), id: "1ef-0001", ts, channel_values: { messages: ["hi"] } };
  const config = await saver.put({ configurable: { thread_id: "t", checkpoint_ns: "" } }, first, {
    source: "input",
    step: -1,
    parents: {},
  });
  // The same id again replaces the row; a second checkpoint names the first as its parent.
  await saver.put(
    { configurable: { thread_id: "t", checkpoint_ns: "" } },
    { ...first, channel_values: { messages: ["hi!"] } },
    {
      source: "input",
      step: -1,
      parents: {},
    },
  );
  await saver.put(config, { ...emptyCheckpoint(), id: "1ef-0002", ts }, { source: "loop", step: 0, parents: {} });
  // Ordinary writes are kept as first written; special ones (here TASKS is not special, __error__ is) replace.
  await saver.putWrites(
    config,
    [
      ["messages", "a"],
      [TASKS, { node: "x" }],
    ],
    "task-1",
  );
  await saver.putWrites(config, [["messages", "b"]], "task-1");
  await saver.putWrites(config, [["__error__", "first"]], "task-2");
  await saver.putWrites(config, [["__error__", "second"]], "task-2");
  const tuple = await saver.getTuple({
    configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: "1ef-0001" },
  });
  return {
    checkpoints: db
      .prepare(
        "SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, CAST(checkpoint AS TEXT) AS c, CAST(metadata AS TEXT) AS m FROM checkpoints ORDER BY checkpoint_id",
      )
      .all(),
    writes: db
      .prepare(
        "SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, CAST(value AS TEXT) AS v FROM writes ORDER BY task_id, idx",
      )
      .all(),
    pending: tuple?.pendingWrites,
    values: tuple?.checkpoint.channel_values,
  };
}

test("the prepared saver writes the same rows as LangGraph's SqliteSaver", async () => {
  const theirs = new Database(":memory:");
  const ours = new Database(":memory:");
  const expected = await write(new SqliteSaver(theirs), theirs);
  assert.deepEqual(await write(new PreparedSqliteSaver(ours), ours), expected);
  assert.equal(expected.checkpoints.length, 2);
  assert.equal(expected.writes.length, 3);
});

test("the prepared saver refuses what SqliteSaver refuses", async () => {
  const saver = new PreparedSqliteSaver(new Database(":memory:"));
  await assert.rejects(
    saver.put({}, emptyCheckpoint(), { source: "input", step: -1, parents: {} }),
    /Empty configuration/,
  );
  await assert.rejects(
    saver.put({ configurable: {} }, emptyCheckpoint(), { source: "input", step: -1, parents: {} }),
    /Missing "thread_id"/,
  );
  await assert.rejects(saver.putWrites({ configurable: { thread_id: "t" } }, [], "task"), /Missing checkpoint_id/);
});
