import assert from "node:assert/strict";
import { test } from "node:test";
import { HarnessError } from "@deerflow/harness";
import { testRedis } from "../../test/redis.js";
import { createRedisClient, type RedisClient, resolveRedisUrl } from "./redis-connection.js";
import { createRedisEventLog, type RedisEventLogOptions } from "./redis-event-log.js";
import type { GapEvent, StreamEvent } from "./types.js";

/** The number of an entry within its stream ("1732000000000-3" → "3"). */
const n = (id: string) => id.split("-")[1]!;

async function read(iterable: AsyncIterable<StreamEvent | GapEvent>): Promise<(StreamEvent | GapEvent)[]> {
  const out: (StreamEvent | GapEvent)[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** Two "processes" (two connections, two logs) on one fresh key prefix. */
async function twoLogs(t: import("node:test").TestContext, options: Partial<RedisEventLogOptions> = {}) {
  const redis = await testRedis();
  if ("skip" in redis) {
    t.skip(redis.skip);
    return null;
  }
  const clients: RedisClient[] = [];
  const open = async () => {
    const client = createRedisClient({ url: redis.url, key: "stream.url" }, () => {});
    await client.connectChecked();
    clients.push(client);
    return createRedisEventLog(client, {
      keyPrefix: redis.prefix,
      maxEvents: 100,
      retentionMs: 60_000,
      blockMs: 200,
      ...options,
    });
  };
  const a = await open();
  const b = await open();
  t.after(async () => {
    await a.close();
    await b.close();
    for (const client of clients) client.destroy();
    await redis.cleanup();
  });
  const ttl = async (runId: string) => Number(await clients[0]!.sendCommand(["PTTL", `${redis.prefix}run:${runId}`]));
  return { a, b, redis, ttl };
}

test("redis log: a run written by one process is followed live, replayed and joined from an id by another; ids count 1, 2, 3", async (t) => {
  const logs = await twoLogs(t);
  if (!logs) return;
  const { a, b } = logs;
  const signal = new AbortController().signal;
  assert.equal(await b.has("r"), false);
  assert.deepEqual(await read(b.follow("r", "-1", signal)), [], "no log, nothing to follow");
  const firstId = await a.append("r", "metadata", '{"run_id":"r"}');
  assert.match(firstId, /^\d{13}-1$/, "ids are the stream's epoch (when it began) and a counter");
  const live = read(b.follow("r", "-1", signal));
  const onlyNew = read(b.follow("r", null, signal));
  // Let both followers reach their blocking read before the writes.
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (let index = 0; index < 3; index++)
    await a.append("r", "messages", JSON.stringify([{ content: `t${index}` }, {}]));
  await a.end("r");
  const seen = (await live) as StreamEvent[];
  assert.deepEqual(
    seen.map((event) => `${n(event.id)}:${event.event}`),
    ["1:metadata", "2:messages", "3:messages", "4:messages", "5:end"],
  );
  assert.equal(seen[2]!.data, '[{"content":"t1"},{}]');
  assert.deepEqual(
    ((await onlyNew) as StreamEvent[]).map((event) => n(event.id)),
    ["2", "3", "4", "5"],
    "null: only what came after joining",
  );
  const rejoined = (await read(b.follow("r", seen[2]!.id, signal))) as StreamEvent[];
  assert.deepEqual(
    rejoined.map((event) => n(event.id)),
    ["4", "5"],
    "Last-Event-ID of the third event: strictly after it",
  );
  assert.deepEqual(
    ((await read(b.follow("r", "3", signal))) as StreamEvent[]).map((event) => n(event.id)),
    ["4", "5"],
    "a bare number: that entry of the stream",
  );
  assert.equal(await b.ended("r"), true);
  assert.equal(await b.append("r", "values", "{}"), "", "nothing is appended after end, from any process");
  assert.equal(((await read(a.follow("r", "-1", signal))) as StreamEvent[]).length, 5);
});

test("redis log: at most maxEvents per run (end kept), a cursor older than the stream gets a gap, and keys expire", async (t) => {
  const logs = await twoLogs(t, { maxEvents: 3, retentionMs: 5_000, openTtlMs: 60_000 });
  if (!logs) return;
  const { a, b, ttl } = logs;
  const signal = new AbortController().signal;
  await a.append("r", "metadata", "{}");
  for (let index = 0; index < 2; index++) await a.append("r", "values", String(index));
  assert.ok((await ttl("r")) > 5_000, "an open run's stream has the long safety expiry");
  await a.end("r");
  const ttlAfterEnd = await ttl("r");
  assert.ok(
    ttlAfterEnd > 0 && ttlAfterEnd <= 5_000,
    `an ended stream expires after the retention time (PTTL ${ttlAfterEnd})`,
  );
  const replay = (await read(b.follow("r", "-1", signal))) as StreamEvent[];
  assert.deepEqual(
    replay.map((event) => `${n(event.id)}:${event.event}`),
    ["2:values", "3:values", "4:end"],
    "the oldest event went, end stayed",
  );
  const gap = await read(b.follow("r", "0", signal));
  assert.equal(gap.length, 1);
  assert.deepEqual((gap[0] as GapEvent).gap, {
    code: "stream_replay_gap",
    run_id: "r",
    requested_event_id: "0",
    earliest_available_event_id: replay[0]!.id,
    latest_available_event_id: replay[2]!.id,
    recovery: "reload_durable_state",
  });
  assert.deepEqual(
    ((await read(b.follow("r", "1", signal))) as StreamEvent[]).map((event) => n(event.id)),
    ["2", "3", "4"],
    "cursor 1 misses nothing",
  );
});

test("redis log: a dropped log ends its followers, and an aborted follower lets go of its blocking read", async (t) => {
  const logs = await twoLogs(t);
  if (!logs) return;
  const { a, b } = logs;
  await a.append("gone", "metadata", "{}");
  const following = read(b.follow("gone", "-1", new AbortController().signal));
  await new Promise((resolve) => setTimeout(resolve, 100));
  await a.drop("gone");
  assert.deepEqual(
    ((await following) as StreamEvent[]).map((event) => event.event),
    ["metadata"],
  );
  assert.equal(await b.has("gone"), false);

  await a.append("open", "metadata", "{}");
  const controller = new AbortController();
  const reader = read(b.follow("open", "1", controller.signal));
  await new Promise((resolve) => setTimeout(resolve, 100));
  controller.abort();
  assert.deepEqual(await reader, []);
  // The pool replaces the connection the aborted reader closed: following still works.
  const next = read(b.follow("open", "1", new AbortController().signal));
  await a.append("open", "values", "{}");
  await a.end("open");
  assert.deepEqual(
    ((await next) as StreamEvent[]).map((event) => n(event.id)),
    ["2", "3"],
  );
});

test("redis log: a follower whose stream was lost and begun again (a Redis restart) gets a gap instead of waiting forever", async (t) => {
  const logs = await twoLogs(t);
  if (!logs) return;
  const { a, b, redis } = logs;
  await a.append("lost", "metadata", "{}");
  for (let index = 0; index < 4; index++) await a.append("lost", "values", String(index));
  const following = read(b.follow("lost", "-1", new AbortController().signal));
  await new Promise((resolve) => setTimeout(resolve, 100));
  // What a Redis restart without persistence does under a running run: the key is gone, the writer goes on.
  const wipe = createRedisClient({ url: redis.url, key: "stream.url" }, () => {});
  await wipe.connectChecked();
  // (In one step, so the follower cannot look in between and find no stream at all.)
  // Begun again it has more entries than before, so only its new epoch tells its ids from the old ones.
  const restart =
    "redis.call('DEL', KEYS[1]); for i = 1, 8 do redis.call('XADD', KEYS[1], '9999999999999-' .. i, 'e', 'values', 'd', 'after') end redis.call('XADD', KEYS[1], '9999999999999-9', 'e', 'end', 'd', 'null')";
  await wipe.sendCommand(["EVAL", restart, "1", `${redis.prefix}run:lost`]);
  wipe.destroy();
  const items = await following;
  const old = items.slice(0, 5) as StreamEvent[];
  assert.deepEqual(
    old.map((item) => n(item.id)),
    ["1", "2", "3", "4", "5"],
  );
  assert.equal(items.length, 6, "no event of the new stream is passed off as the old one's");
  assert.deepEqual((items[5] as GapEvent).gap, {
    code: "stream_replay_gap",
    run_id: "lost",
    requested_event_id: old[4]!.id,
    earliest_available_event_id: null,
    latest_available_event_id: "9999999999999-9",
    recovery: "reload_durable_state",
  });
  const stale = await read(b.follow("lost", old[4]!.id, new AbortController().signal));
  assert.equal(
    (stale[0] as GapEvent).gap.latest_available_event_id,
    "9999999999999-9",
    "a client rejoining with an old id gets the gap too",
  );
});

test("redis config: the URL comes from stream.url or REDIS_URL, and a bad or unreachable one says which key to fix", async () => {
  assert.deepEqual(resolveRedisUrl({ url: null }, { REDIS_URL: "redis://cache:6379" }), {
    url: "redis://cache:6379",
    key: "REDIS_URL",
  });
  assert.deepEqual(
    resolveRedisUrl({ url: "rediss://:pw@cache:6380/2" }, { REDIS_URL: "redis://other" }).key,
    "stream.url",
  );
  assert.throws(() => resolveRedisUrl({ url: null }, {}), /no stream\.url is set\. Set stream\.url .* or REDIS_URL/);
  assert.throws(() => resolveRedisUrl({ url: "http://cache:6379" }, {}), /stream\.url must start with redis:\/\//);
  assert.throws(() => resolveRedisUrl({ url: null }, { REDIS_URL: "not a url" }), /REDIS_URL is not a URL/);
  const client = createRedisClient({ url: "redis://:secret@127.0.0.1:1", key: "stream.url" }, () => {});
  await assert.rejects(client.connectChecked(), (error: unknown) => {
    assert.ok(error instanceof HarnessError);
    assert.equal(error.code, "storage_unusable");
    assert.match(
      error.message,
      /Cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1 \(.+\)\. Start Redis or fix stream\.url/,
    );
    assert.doesNotMatch(error.message, /secret/);
    return true;
  });
});

test("redis log: a cursor at or past the end of a finished run's log gets that end at once, and nothing else", async (t) => {
  const logs = await twoLogs(t);
  if (!logs) return;
  const { a, b } = logs;
  const signal = new AbortController().signal;
  await a.append("r", "metadata", "{}");
  await a.append("r", "values", "1");
  await a.end("r");
  const all = (await read(b.follow("r", "-1", signal))) as StreamEvent[];
  const end = all.at(-1)!;
  assert.equal(end.event, "end");
  const epoch = end.id.split("-")[0]!;
  for (const cursor of [end.id, `${epoch}-4`, `${epoch}-999`, "999", null]) {
    assert.deepEqual(await read(b.follow("r", cursor, signal)), [end], `${cursor}`);
  }
});
