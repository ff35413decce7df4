/**
 * How many statements a one-turn streamed run sends to Postgres, counted through pg's query method (a
 * count, not a time): checkpoints and their pending writes are one statement each, fenced inside the
 * statement, with no transaction around them, an event row's INSERT carries its notification, events
 * that come while a row is written share the next row, and a transaction sends its statements in batches
 * (the insert of the run and the retention prune: two round trips each). The
 * bound has room for a background tick (the sweeper) landing in the window. `npm run bench -- server`
 * reports the same count by kind. Skips with the reason when no Postgres is reachable.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { testDatabase } from "@deerflow/harness/testing";
import pg from "pg";
import { collect, startTestServer } from "./helpers.js";

/**
 * At most this many statements per one-turn run (measured: 24-25; 38 before the worker's phases became
 * one statement each (the claim marks the thread busy, the run's kwargs ride with its first checkpoint
 * write, settle is one statement) and the run's head reads came from memory; 42-43 before the large values went into
 * the checkpoint statements; 48 before claims, delivery sweeps and wake-ups were folded; 60-63 before the run's insert and the retention transaction were batched and
 * event rows group-committed; 164 before batching). The margin is for how events happen to group.
 */
const MAX_STATEMENTS = 28;
/** The event rows a one-turn run writes when its events group as they usually do (3-5). */
const EVENT_ROWS = 5;

/** The statements sent while `work` runs. */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const original = pg.Client.prototype.query;
  const sent: string[] = [];
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const text = typeof config === "string" ? config : String((config as { text?: string }).text);
    sent.push(text.replace(/\s+/g, " ").slice(0, 1000));
    return (original as (...args: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof original;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = original;
  }
  return sent;
}

test("a one-turn streamed run on Postgres sends a bounded number of statements, none to wrap a checkpoint write", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  t.after(() => db.drop());
  const server = await startTestServer({ yaml: `database: {backend: postgres, url: '${db.url}'}` });
  t.after(() => server.close());
  const stream = (threadId: string) =>
    collect(
      server.client.runs.stream(threadId, "lead_agent", {
        input: { messages: [{ role: "user", content: "How are you?" }] },
        streamMode: ["values", "messages-tuple", "updates", "custom"],
      }),
    );
  // The first run also prepares what later runs reuse.
  await stream((await server.client.threads.create()).thread_id);
  const thread = await server.client.threads.create();
  let parts: Awaited<ReturnType<typeof stream>> = [];
  const statements = await statementsOf(async () => {
    parts = await stream(thread.thread_id);
  });
  assert.equal(parts.at(-1)?.event, "end");
  const listing = statements.join("\n");
  // Event rows group by timing: on a loaded machine each event can find no row being written and go out
  // alone (11 rows were seen in a CI run). They are bounded by the events streamed; the rest is bounded
  // as a whole, as if the events had shared the usual four rows.
  const eventRows = statements.filter((text) => /^WITH written AS \( INSERT INTO run_events/.test(text)).length;
  assert.ok(eventRows <= parts.length, `${eventRows} event rows for ${parts.length} events:\n${listing}`);
  const counted = statements.length - eventRows + Math.min(eventRows, EVENT_ROWS);
  assert.ok(counted <= MAX_STATEMENTS, `${statements.length} statements (${eventRows} event rows):\n${listing}`);
  assert.ok(!statements.some((text) => /^INSERT INTO "public"\.checkpoint/.test(text)), listing);
  assert.ok(
    statements.filter((text) => /INSERT INTO "public"\.checkpoint/.test(text)).length >= 3,
    `checkpoints and writes as single statements:\n${listing}`,
  );
});
