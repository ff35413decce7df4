import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { openPostgresDatabase } from "@deerflow/harness";
import { testDatabase } from "@deerflow/harness/testing";
import pg from "pg";
import { createPostgresEventLog } from "./postgres-event-log.js";
import { createNotifier } from "./postgres-notify.js";
import type { GapEvent, StreamEvent } from "./types.js";

/** A log on a fresh database, closed after the test; null when the test skipped (no Postgres). */
async function openLog(t: TestContext) {
  const db = await testDatabase();
  if ("skip" in db) {
    t.skip(db.skip);
    return null;
  }
  const database = await openPostgresDatabase(db.url);
  const notifier = createNotifier(db.url, database.pool, () => {});
  const log = createPostgresEventLog(database.pool, notifier, { retentionMs: 60_000 });
  t.after(async () => {
    await log.close();
    await notifier.close();
    await database.close();
    await db.drop();
  });
  return { database, log };
}

async function read(iterable: AsyncIterable<StreamEvent | GapEvent>): Promise<(StreamEvent | GapEvent)[]> {
  const out: (StreamEvent | GapEvent)[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

test("postgres log: a run keeps at most maxEvents (end kept), an older cursor gets a gap, every process sees the same", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  const database = await openPostgresDatabase(db.url);
  const notifier = createNotifier(db.url, database.pool, () => {});
  const writer = createPostgresEventLog(database.pool, notifier, { retentionMs: 60_000, maxEvents: 5 });
  const other = createPostgresEventLog(database.pool, notifier, { retentionMs: 60_000, maxEvents: 5 });
  t.after(async () => {
    await writer.close();
    await other.close();
    await notifier.close();
    await database.close();
    await db.drop();
  });
  const signal = new AbortController().signal;
  // Each event is let written before the next, so each is a row of its own and the cap is exact here.
  await writer.append("r", "metadata", "{}");
  let early!: StreamEvent;
  for await (const item of other.follow("r", "-1", signal)) {
    early = item as StreamEvent;
    break;
  }
  for (let index = 0; index < 7; index++) {
    await writer.append("r", "values", String(index));
    await writer.settled("r");
  }
  await writer.end("r");

  const replay = (await read(other.follow("r", "-1", signal))) as StreamEvent[];
  assert.deepEqual(
    replay.map((event) => event.event),
    ["values", "values", "values", "values", "end"],
    "the oldest events went, end stayed",
  );
  assert.deepEqual(
    replay.slice(0, 4).map((event) => event.data),
    ["3", "4", "5", "6"],
  );
  const [{ n }] = (
    await database.pool.query("SELECT sum(jsonb_array_length(events))::int AS n FROM run_events WHERE run_id = 'r'")
  ).rows;
  assert.equal(n, 5, "the table holds no more than the cap");

  const gap = await read(other.follow("r", early.id, signal));
  assert.equal(gap.length, 1, "a cursor before the kept events gets one gap, not a silent hole");
  assert.deepEqual((gap[0] as GapEvent).gap, {
    code: "stream_replay_gap",
    run_id: "r",
    requested_event_id: early.id,
    earliest_available_event_id: replay[0]!.id,
    latest_available_event_id: replay.at(-1)!.id,
    recovery: "reload_durable_state",
  });
  const fromKept = (await read(other.follow("r", replay[1]!.id, signal))) as StreamEvent[];
  assert.deepEqual(
    fromKept.map((event) => event.id),
    replay.slice(2).map((event) => event.id),
    "a cursor inside the kept events misses nothing",
  );

  await writer.drop("r");
  assert.equal(
    (await database.pool.query("SELECT 1 FROM run_event_trims WHERE run_id = 'r'")).rowCount,
    0,
    "drop forgets the trim mark",
  );
});

test("postgres log: token events coalesced into rows are capped by whole rows, never dropping the newest row", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  const database = await openPostgresDatabase(db.url);
  const notifier = createNotifier(db.url, database.pool, () => {});
  const log = createPostgresEventLog(database.pool, notifier, { retentionMs: 60_000, maxEvents: 10, coalesceMs: 5 });
  t.after(async () => {
    await log.close();
    await notifier.close();
    await database.close();
    await db.drop();
  });
  await log.append("tokens", "metadata", "{}");
  for (let row = 0; row < 6; row++) {
    for (let token = 0; token < 4; token++) await log.append("tokens", "messages", `"${row}.${token}"`);
    await log.append("tokens", "values", String(row)); // flushes the tokens with it: one row of 5 events
    await log.settled("tokens");
  }
  await log.end("tokens");
  const replay = (await read(log.follow("tokens", "-1", new AbortController().signal))) as StreamEvent[];
  assert.ok(replay.length <= 10 && replay.length >= 5, `kept ${replay.length} events`);
  assert.equal(replay.at(-1)!.event, "end");
  assert.equal(replay.at(-2)!.data, "5", "the newest events are the ones kept");
});

test("postgres log: a cursor at or past the end of a finished run's log gets that end at once, and nothing else", async (t) => {
  const opened = await openLog(t);
  if (!opened) return;
  const { log } = opened;
  const signal = new AbortController().signal;
  await log.append("r", "metadata", "{}");
  await log.append("r", "values", "1");
  await log.end("r");
  const all = (await read(log.follow("r", "-1", signal))) as StreamEvent[];
  const end = all.at(-1)!;
  assert.equal(end.event, "end");
  for (const cursor of [end.id, String(Number(end.id) + 1), "999999999999", null]) {
    assert.deepEqual(await read(log.follow("r", cursor, signal)), [end], `${cursor}`);
  }
});

test("postgres log: a follower in another process takes rows from their notifications, and reads the table only for a row too big for one", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  const database = await openPostgresDatabase(db.url);
  const notifier = createNotifier(db.url, database.pool, () => {});
  await notifier.ready;
  const writer = createPostgresEventLog(database.pool, notifier, { retentionMs: 60_000 });
  // No polling during the test: every read below is one the follower chose.
  const other = createPostgresEventLog(database.pool, notifier, { retentionMs: 60_000, pollMs: 600_000 });
  t.after(async () => {
    await writer.close();
    await other.close();
    await notifier.close();
    await database.close();
    await db.drop();
  });
  await writer.append("r", "metadata", "{}");
  const reads: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const text = typeof config === "string" ? config : String((config as { text?: string }).text);
    if (/^SELECT (t\.through|l\.id)/.test(text.trim())) reads.push(text);
    return (original as (...args: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof original;
  t.after(() => {
    pg.Client.prototype.query = original;
  });
  const big = JSON.stringify("x".repeat(10_000));
  const follower = other.follow("r", "-1", new AbortController().signal)[Symbol.asyncIterator]();
  // The follower's first read is done once it has the metadata; what follows reaches it as notifications.
  const first = (await follower.next()).value as StreamEvent;
  // Each a row of its own (a burst would share one).
  for (const data of ["0", "1", "2", "3", "4", big, "5"]) {
    await writer.append("r", "values", data);
    await writer.settled("r");
  }
  await writer.end("r");
  const events = [first, ...((await read({ [Symbol.asyncIterator]: () => follower })) as StreamEvent[])];
  assert.deepEqual(
    events.map((event) => event.data),
    ["{}", "0", "1", "2", "3", "4", big, "5", "null"],
    "every event once, in order",
  );
  assert.equal(reads.length, 2, "the first read, then one for the row whose events did not fit in its notification");
});

test("postgres log: the events of one turn of the event loop share a row; the first event is written at once", async (t) => {
  const opened = await openLog(t);
  if (!opened) return;
  const { database, log } = opened;
  const rows = async () =>
    (
      await database.pool.query<{ n: number }>("SELECT jsonb_array_length(events) AS n FROM run_events ORDER BY id")
    ).rows.map((row) => row.n);
  await log.append("r", "metadata", "{}");
  assert.deepEqual(await rows(), [1], "the first row is there when its append returns");
  // A step's burst, appended one after another with no write in flight: before, each went out alone.
  await log.append("r", "updates", "{}");
  await log.append("r", "values", "{}");
  await log.append("r", "custom", "{}");
  await log.settled("r");
  await log.end("r");
  assert.deepEqual(await rows(), [1, 3, 1], "metadata, the burst as one row, end");
});
