/**
 * Many `deerflow serve` processes on one Postgres behave as one service: real processes, a real database
 * (a fresh one per test), the official SDK Client, the fake OpenAI server as the model. Skips with the
 * reason when no Postgres is reachable.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import type { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { collect, gate, lastUserText, until } from "./helpers.js";
import { assertRunSeenAcross, echoHoldingSlow, human, type Messages, startCluster } from "./serve-process.js";

test("a run created on A is streamed, joined, interrupted and rolled back from B (two processes, one database)", async (t) => {
  const c = await startCluster(t, echoHoldingSlow(t));
  if (!c) return;
  // Both start at once on the empty database: one migrates, the other waits for it.
  const [a, b] = await Promise.all([c.start(), c.start(["--api-only"])]);
  const ok = (await (await fetch(`${b.url}/ok`)).json()) as { ok: boolean; database: { backend: string; ok: boolean } };
  assert.deepEqual([ok.ok, ok.database.backend, ok.database.ok], [true, "postgres", true]);

  const { thread } = await assertRunSeenAcross(a, b);

  const slow = await a.client.runs.create(thread.thread_id, "lead_agent", human("slow"));
  await until(() => c.fake.requests.some((request) => lastUserText(request) === "slow"), 15_000, "the slow model call");
  const watching = collect(b.client.runs.joinStream(thread.thread_id, slow.run_id, { lastEventId: "-1" }));
  await b.client.runs.cancel(thread.thread_id, slow.run_id, true, "interrupt");
  const seen = await watching;
  assert.equal(seen.at(-1)?.event, "end");
  assert.equal((await a.client.runs.get(thread.thread_id, slow.run_id)).status, "interrupted");
  assert.equal((await a.client.threads.get(thread.thread_id)).status, "idle");

  // Rollback from B: the run's checkpoints go, the thread is back to its state before the run.
  const before = ((await b.client.threads.getState(thread.thread_id)).values as Messages).messages.map(
    (message) => message.content,
  );
  const rolled = await a.client.runs.create(thread.thread_id, "lead_agent", human("slow"));
  await until(
    () => c.fake.requests.filter((request) => lastUserText(request) === "slow").length === 2,
    15_000,
    "the second slow call",
  );
  await b.client.runs.cancel(thread.thread_id, rolled.run_id, true, "rollback");
  await assert.rejects(a.client.runs.get(thread.thread_id, rolled.run_id), /404/);
  const after = (await a.client.threads.getState(thread.thread_id)).values as Messages;
  assert.deepEqual(
    after.messages.map((message) => message.content),
    before,
    "the rolled-back run's message is gone",
  );
});

test("kill -9 of the process running a run: the other finishes it and a joined client sees every event and end", async (t) => {
  const never = gate();
  t.after(() => never.open());
  let slowCalls = 0;
  const c = await startCluster(t, async (body) => {
    if (lastUserText(body) === "slow" && ++slowCalls === 1) await never.wait;
    return { content: `echo ${lastUserText(body)}` };
  });
  if (!c) return;
  const a = await c.start();
  const thread = await a.client.threads.create();
  const run = await a.client.runs.create(thread.thread_id, "lead_agent", { ...human("slow"), streamMode: ["values"] });
  await until(() => slowCalls === 1, 15_000, "the first model call");
  const b = await c.start();
  const joined = collect(
    b.client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1", streamMode: ["values"] }),
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  a.child.kill("SIGKILL");
  await a.exited;

  const parts = await joined;
  const names = parts.map((part) => part.event);
  assert.equal(names[0], "metadata");
  assert.equal(names.at(-1), "end", names.join(","));
  assert.ok(!names.includes("error"), names.join(","));
  const last = parts.filter((part) => part.event === "values").at(-1)!.data as Messages;
  assert.equal(last.messages.at(-1)!.content, "echo slow");
  assert.equal(
    last.messages.filter((message) => message.type === "human").length,
    1,
    "the user's message is not repeated",
  );
  const settled = await b.client.runs.get(thread.thread_id, run.run_id);
  assert.equal(settled.status, "success");
  assert.equal((settled as unknown as { kwargs: { attempt?: number } }).kwargs.attempt, 2);
  assert.match(b.out.stderr, /stopped renewing its lease; queued again/);
});

test("50 runs over two processes on 10 threads with enqueue: each thread's runs serial, none lost", async (t) => {
  const c = await startCluster(t, async (body) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { content: `echo ${lastUserText(body)}` };
  });
  if (!c) return;
  const [a, b] = await Promise.all([c.start(), c.start()]);
  const threads = await Promise.all(
    Array.from({ length: 10 }, (_, index) => (index % 2 ? a : b).client.threads.create()),
  );
  const created: { thread: string; run: string; via: Client }[] = [];
  for (let round = 0; round < 5; round += 1) {
    await Promise.all(
      threads.map(async (thread, index) => {
        const via = (index + round) % 2 ? a.client : b.client;
        const run = await via.runs.create(thread.thread_id, "lead_agent", {
          ...human(`t${index} m${round}`),
          multitaskStrategy: "enqueue",
        });
        created.push({ thread: thread.thread_id, run: run.run_id, via });
      }),
    );
  }
  assert.equal(created.length, 50);
  for (const item of created) await item.via.runs.join(item.thread, item.run);
  for (const item of created) {
    const run = await a.client.runs.get(item.thread, item.run);
    assert.equal(run.status, "success", `${JSON.stringify(run)}\nA: ${a.out.stderr}\nB: ${b.out.stderr}`);
  }
  for (const [index, thread] of threads.entries()) {
    const state = (await b.client.threads.getState(thread.thread_id)).values as Messages;
    const texts = state.messages.map((message) => message.content);
    const expected = [0, 1, 2, 3, 4].flatMap((round) => [`t${index} m${round}`, `echo t${index} m${round}`]);
    assert.deepEqual(texts, expected, `thread ${index} ran its runs one after another, in order`);
  }
});

test("a run whose worker died three times ends with an error and end, and the thread is retryable", async (t) => {
  const c = await startCluster(t, async (body) => ({ content: `echo ${lastUserText(body)}` }));
  if (!c) return;
  const a = await c.start();
  const thread = await a.client.threads.create();
  const done = await a.client.runs.create(thread.thread_id, "lead_agent", human("first"));
  await a.client.runs.join(thread.thread_id, done.run_id);
  // What three dead workers leave behind: a run still `running`, its third attempt, a lease long expired.
  const dead = randomUUID();
  const sql = new pg.Client({ connectionString: c.dbUrl });
  await sql.connect();
  try {
    await sql.query(
      `INSERT INTO server_runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, multitask_strategy, kwargs, worker_id, lease_expires)
       SELECT $2, thread_id, assistant_id, created_at, updated_at, 'running', metadata, multitask_strategy, kwargs || '{"attempt": 3, "input_consumed": true}'::jsonb, 'gone:1:x', now() - interval '1 minute'
       FROM server_runs WHERE run_id = $1`,
      [done.run_id, dead],
    );
    await sql.query(`INSERT INTO run_events (run_id, events) VALUES ($1, '[["metadata", "{}"]]')`, [dead]);
  } finally {
    await sql.end();
  }
  const parts = await collect(a.client.runs.joinStream(thread.thread_id, dead, { lastEventId: "-1" }));
  assert.deepEqual(
    parts.map((part) => part.event),
    ["metadata", "error", "end"],
  );
  assert.match(JSON.stringify(parts[1]!.data), /stopped 3 times.*send it again to retry/);
  assert.equal((await a.client.runs.get(thread.thread_id, dead)).status, "error");
  const retry = await a.client.runs.create(thread.thread_id, "lead_agent", human("again"));
  const values = (await a.client.runs.join(thread.thread_id, retry.run_id)) as Messages;
  assert.equal(values.messages.at(-1)!.content, "echo again");
});

test("serve --workers 2: the API process executes nothing itself, its worker children run the runs", async (t) => {
  const c = await startCluster(t, async (body) => ({ content: `echo ${lastUserText(body)}` }));
  if (!c) return;
  const api = await c.start(["--workers", "2"]);
  await until(
    () => (api.out.stderr.match(/DeerFlow worker \d+ executing runs/g) ?? []).length === 2,
    30_000,
    "two workers",
  );
  const thread = await api.client.threads.create();
  const values = (await api.client.runs.wait(thread.thread_id, "lead_agent", human("hi"))) as Messages;
  assert.equal(values.messages.at(-1)!.content, "echo hi");
  api.child.kill("SIGTERM");
  assert.equal(await api.exited, 0, api.out.stderr);
  assert.equal((api.out.stderr.match(/worker \d+ stopped/g) ?? []).length, 2, api.out.stderr);
});
