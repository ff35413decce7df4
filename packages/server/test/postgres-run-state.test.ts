/**
 * On Postgres the worker records what a run did with fewer statements: the claim marks the thread busy
 * and counts the attempt, where the run started rides with its first checkpoint write (behind the run's
 * fence), the thread's state after the run comes from the head the run wrote (kept in memory) and the
 * run's end is one statement. What readers see must not change: the thread a run leaves (status, values,
 * interrupts) is what its checkpoints say, across an interrupt and its resume, and the run's record
 * holds its attempt and start. Skips with the reason when no Postgres is reachable.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { testDatabase } from "@deerflow/harness/testing";
import pg from "pg";
import { collect, startTestServer } from "./helpers.js";

type Values = { messages: { type: string; content: string; status?: string }[] };

const listCall = { name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } };

test("on Postgres, the thread a run leaves is what its checkpoints say: an approval interrupt, then its resume", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  t.after(() => db.drop());
  const server = await startTestServer({
    yaml: `database: {backend: postgres, url: '${db.url}'}\ntool_policies: {ls: approval}`,
    script: (body) =>
      body.messages.some((message) => message.role === "tool") ? { content: "done" } : { tool_calls: [listCall] },
  });
  t.after(() => server.close());
  const { client } = server;
  const thread = await client.threads.create();

  const first = await collect(
    client.runs.stream(thread.thread_id, "lead_agent", {
      input: { messages: [{ type: "human", content: "look" }] },
      streamMode: ["values"],
    }),
  );
  assert.equal(first.at(-1)?.event, "end");
  const interrupted = await client.threads.get(thread.thread_id);
  const state = await client.threads.getState(thread.thread_id);
  assert.equal(interrupted.status, "interrupted");
  assert.deepEqual(interrupted.values, state.values, "the thread's values are its head checkpoint's");
  const interrupts = (interrupted as unknown as { interrupts: Record<string, { value: { tool_name: string } }[]> })
    .interrupts;
  assert.deepEqual(
    Object.values(interrupts).flatMap((entries) => entries.map((entry) => entry.value.tool_name)),
    ["ls"],
  );
  assert.deepEqual(
    state.tasks.flatMap((task) => task.interrupts.map((entry) => (entry.value as { tool_name: string }).tool_name)),
    ["ls"],
  );
  // What the worker recorded about the run (not sent to clients): its attempt, where it started, its input taken.
  const [run] = await client.runs.list(thread.thread_id);
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  const stored = await sql
    .query("SELECT kwargs FROM server_runs WHERE run_id = $1", [run!.run_id])
    .finally(() => sql.end());
  const kwargs = stored.rows[0].kwargs as Record<string, unknown>;
  assert.equal(kwargs.attempt, 1);
  assert.equal(kwargs.start_checkpoint_id, null, "the run started on an empty thread");
  assert.equal(kwargs.input_consumed, true);

  const resumed = await collect(
    client.runs.stream(thread.thread_id, "lead_agent", {
      command: { resume: { approved: true } },
      streamMode: ["values"],
    }),
  );
  const last = resumed.filter((part) => part.event === "values").at(-1)!.data as Values;
  assert.equal(last.messages.at(-1)!.content, "done");
  const idle = await client.threads.get(thread.thread_id);
  const after = await client.threads.getState(thread.thread_id);
  assert.equal(idle.status, "idle");
  assert.deepEqual(idle.values, after.values);
  assert.deepEqual((idle as unknown as { interrupts: unknown }).interrupts, {});
  assert.equal(after.next.length, 0);
});
