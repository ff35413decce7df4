/**
 * The runner on both stores: SQLite (`:memory:`) and Postgres (a fresh database; skipped with the reason
 * when none is reachable). Two runners stand for two processes (on Postgres, two pools).
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, type TestContext, test } from "node:test";
import Database from "better-sqlite3";
import { openPostgresDatabase, type PostgresDatabase } from "../storage/postgres-database.js";
import { type TestDatabase, testDatabase } from "../testing/postgres.js";
import { openPostgresBatchStore } from "./postgres-store.js";
import { resultLines, runBatch } from "./runner.js";
import { LEASE_LOST_ERROR, openSqliteBatchStore } from "./sqlite-store.js";
import type { BatchStore, NewBatch } from "./store.js";

function newBatch(count: number, overrides: Partial<NewBatch> = {}): NewBatch {
  return {
    batchId: randomUUID(),
    threadId: randomUUID(),
    toolCallId: "call-1",
    owner: "alice",
    description: "words",
    template: "Say {item}",
    subagentType: "model",
    concurrency: 3,
    maxAttempts: 3,
    outputPath: "/mnt/user-data/outputs/batch-words.jsonl",
    items: Array.from({ length: count }, (_, index) => JSON.stringify(`w${index}`)),
    ...overrides,
  };
}

type Backend = "sqlite" | "postgres";

let postgres: Promise<{ database: TestDatabase; pools: PostgresDatabase[] } | { skip: string }> | undefined;
after(async () => {
  const opened = await postgres;
  if (!opened || "skip" in opened) return;
  for (const pool of opened.pools) await pool.close();
  await opened.database.drop();
});

/** A store of the backend, or null when the test was skipped (no Postgres). `fresh` opens another pool. */
async function openStore(t: TestContext, backend: Backend, fresh = false): Promise<BatchStore | null> {
  if (backend === "sqlite") return openSqliteBatchStore(new Database(":memory:"));
  postgres ??= testDatabase().then(async (database) =>
    "skip" in database ? database : { database, pools: [await openPostgresDatabase(database.url)] },
  );
  const opened = await postgres;
  if ("skip" in opened) {
    t.skip(opened.skip);
    return null;
  }
  if (fresh) opened.pools.push(await openPostgresDatabase(opened.database.url));
  return openPostgresBatchStore(opened.pools.at(-1)!.pool);
}

async function openBatch(t: TestContext, backend: Backend, count: number, overrides: Partial<NewBatch> = {}) {
  const store = await openStore(t, backend);
  if (!store) return null;
  const { batch } = await store.open(newBatch(count, overrides));
  return { store, batch };
}

const parse = (text: string) =>
  text
    .trim()
    .split("\n")
    .map(
      (line) =>
        JSON.parse(line) as { index: number; status: string; result?: string; error?: string; attempts: number },
    );

for (const backend of ["sqlite", "postgres"] as const) {
  test(`${backend}: every item runs once, its result is recorded in order, and a second open finds the batch`, async (t) => {
    const opened = await openBatch(t, backend, 25);
    if (!opened) return;
    const { store, batch } = opened;
    const prompts: string[] = [];
    const seen: number[] = [];
    const outcome = await runBatch({
      store,
      batch,
      leaseMs: 10_000,
      progressMs: 0,
      onProgress: (counts) => seen.push(counts.done),
      runItem: async (prompt) => {
        prompts.push(prompt);
        return prompt.toUpperCase();
      },
    });
    assert.equal(outcome.cancelled, false);
    assert.deepEqual({ ...outcome.counts }, { total: 25, pending: 0, running: 0, done: 25, failed: 0 });
    assert.equal(new Set(prompts).size, 25);
    assert.equal(prompts.length, 25);
    const lines = parse(await resultLines(store, batch.batchId));
    assert.deepEqual(
      lines.map((line) => line.index),
      Array.from({ length: 25 }, (_, index) => index),
    );
    assert.equal(lines[7]!.result, "SAY W7");
    assert.equal(seen.at(-1), 25, "the last progress report counts every item");
    const again = await store.open({ ...newBatch(3), threadId: batch.threadId, toolCallId: batch.toolCallId });
    assert.equal(again.created, false);
    assert.equal(again.batch.total, 25, "the recorded batch, not a new one");
  });

  test(`${backend}: a failing item is retried up to max_attempts, then recorded as failed with its error`, async (t) => {
    const opened = await openBatch(t, backend, 4, { maxAttempts: 3 });
    if (!opened) return;
    const { store, batch } = opened;
    const calls = new Map<string, number>();
    const outcome = await runBatch({
      store,
      batch,
      leaseMs: 10_000,
      runItem: async (prompt) => {
        const n = (calls.get(prompt) ?? 0) + 1;
        calls.set(prompt, n);
        if (prompt === "Say w1") throw new Error(`boom ${n}`);
        if (prompt === "Say w2" && n < 3) throw new Error("flaky");
        return "ok";
      },
    });
    assert.deepEqual([outcome.counts.done, outcome.counts.failed], [3, 1]);
    assert.equal(calls.get("Say w1"), 3, "three attempts, no more");
    assert.equal(calls.get("Say w2"), 3, "succeeded on its third attempt");
    const lines = parse(await resultLines(store, batch.batchId));
    assert.deepEqual(lines[1], { index: 1, item: "w1", status: "failed", attempts: 3, error: "boom 3" });
    assert.equal(lines[2]!.status, "done");
    assert.equal(lines[2]!.attempts, 3);
  });

  test(`${backend}: an expired lease is claimed again, and the first holder can no longer record the item`, async (t) => {
    const opened = await openBatch(t, backend, 3, { maxAttempts: 2 });
    if (!opened) return;
    const { store, batch } = opened;
    let clock = 1_000;
    const [held] = await store.claim(batch.batchId, "other-host:1:aaaa", 1, clock, 500);
    assert.equal(held!.index, 0);
    clock += 400;
    const early = await store.claim(batch.batchId, "me:2:bbbb", 5, clock, 500);
    assert.deepEqual(
      early.map((item) => item.index),
      [1, 2],
      "a live lease is left alone",
    );
    await store.release(batch.batchId, "me:2:bbbb");
    clock += 200;
    const ran: string[] = [];
    const outcome = await runBatch({
      store,
      batch,
      leaseMs: 500,
      now: () => clock,
      runItem: async (prompt) => {
        ran.push(prompt);
        return `r:${prompt}`;
      },
    });
    assert.equal(outcome.counts.done, 3);
    assert.deepEqual(ran.sort(), ["Say w0", "Say w1", "Say w2"]);
    assert.equal(
      await store.complete(batch.batchId, 0, "other-host:1:aaaa", "late"),
      false,
      "the stale holder is refused",
    );
    const lines = parse(await resultLines(store, batch.batchId));
    assert.equal(lines[0]!.result, "r:Say w0");
    assert.equal(lines[0]!.attempts, 2, "the lost claim counted as an attempt");
    assert.equal(lines[1]!.attempts, 1, "a released claim did not");
  });

  test(`${backend}: an item whose lease expires on its last attempt is recorded as failed`, async (t) => {
    const opened = await openBatch(t, backend, 1, { maxAttempts: 1 });
    if (!opened) return;
    const { store, batch } = opened;
    await store.claim(batch.batchId, "gone:1:x", 1, 0, 100);
    const outcome = await runBatch({ store, batch, leaseMs: 100, now: () => 1_000, runItem: async () => "never" });
    assert.deepEqual([outcome.counts.done, outcome.counts.failed], [0, 1]);
    assert.equal(parse(await resultLines(store, batch.batchId))[0]!.error, LEASE_LOST_ERROR);
  });

  test(`${backend}: claims of a dead process of this host are taken over at once, without waiting for the lease`, async (t) => {
    const opened = await openBatch(t, backend, 2);
    if (!opened) return;
    const { store, batch } = opened;
    // A pid far above any pid_max: no such process.
    await store.claim(batch.batchId, "thishost:99999999:dead", 2, Date.now(), 3_600_000);
    const outcome = await runBatch({ store, batch, leaseMs: 3_600_000, host: "thishost", runItem: async () => "ok" });
    assert.equal(outcome.counts.done, 2);
  });

  test(`${backend}: a cancelled batch gives its claims back without counting the attempt`, async (t) => {
    const opened = await openBatch(t, backend, 10, { concurrency: 2 });
    if (!opened) return;
    const { store, batch } = opened;
    const controller = new AbortController();
    let started = 0;
    const outcome = await runBatch({
      store,
      batch,
      leaseMs: 10_000,
      signal: controller.signal,
      runItem: (_prompt, signal) =>
        new Promise((resolve) => {
          started += 1;
          if (started === 3) controller.abort();
          if (started > 2) signal.addEventListener("abort", () => resolve("late"));
          else resolve("ok");
        }),
    });
    assert.equal(outcome.cancelled, true);
    assert.equal(outcome.counts.done, 2);
    assert.equal(outcome.counts.running, 0);
    assert.equal(outcome.counts.pending, 8);
    const next = await store.claim(batch.batchId, "w", 10, Date.now(), 1000);
    assert.ok(
      next.every((item) => item.attempt === 1),
      "released items start again at attempt 1",
    );
  });

  test(`${backend}: two runners on one batch record each item exactly once`, async (t) => {
    const opened = await openBatch(t, backend, 200, { concurrency: 4 });
    if (!opened) return;
    const { store, batch } = opened;
    // Another process: on Postgres a second pool; SQLite has one writer per file, so the same store.
    const second: BatchStore = backend === "postgres" ? (await openStore(t, backend, true))! : store;
    const runs = new Map<string, number>();
    const runItem = async (prompt: string) => {
      runs.set(prompt, (runs.get(prompt) ?? 0) + 1);
      await new Promise((resolve) => setImmediate(resolve));
      return prompt;
    };
    const both = await Promise.all([
      runBatch({ store, batch, leaseMs: 10_000, runItem, pid: 1 }),
      runBatch({ store: second, batch, leaseMs: 10_000, runItem, pid: 2 }),
    ]);
    assert.equal(both[0].counts.done, 200);
    assert.equal([...runs.values()].filter((n) => n !== 1).length, 0, "no item ran twice");
    assert.equal(parse(await resultLines(store, batch.batchId)).length, 200);
  });
}
