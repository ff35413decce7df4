/**
 * `stream: {backend: redis}`: two `deerflow serve` processes on one Postgres and one Redis, where the
 * run events travel through Redis Streams and runs stay in Postgres. Real processes, a fresh database and
 * key prefix per test, the official SDK Client, the fake OpenAI server as the model. Skips with the reason
 * when Postgres or Redis is not reachable.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { type TestContext, test } from "node:test";
import { createTempHome } from "@deerflow/harness/testing";
import pg from "pg";
import { collect, lastUserText, parseSse, readSse, until } from "./helpers.js";
import { testRedis, type TestRedis } from "./redis.js";
import {
  assertRunSeenAcross,
  echoHoldingSlow,
  human,
  type ServeProcess,
  startCluster,
  startServe,
} from "./serve-process.js";

/** `deerflow serve` on `config`, with no REDIS_URL from the environment to mask the config's `stream.url`. */
const serve = (config: string, home: string, procs: ServeProcess[], args: string[] = []) =>
  startServe({ config, home, procs, args, env: { REDIS_URL: "" } });

/** A fresh database and key prefix, a shared home and config with `stream.backend: redis`. */
async function cluster(t: TestContext, script: Parameters<typeof startCluster>[1]) {
  const redis = await testRedis();
  if ("skip" in redis) {
    t.skip(redis.skip);
    return null;
  }
  const base = await startCluster(t, script, {
    extraConfig: [`stream: {backend: redis, url: '${redis.url}', key_prefix: '${redis.prefix}'}`],
    env: { REDIS_URL: "" },
  });
  if (!base) {
    await redis.cleanup();
    return null;
  }
  t.after(() => redis.cleanup());
  return { ...base, redis: redis as TestRedis };
}

test("redis streams: a run created on A is streamed, replayed from an id, joined and cancelled on B; its events live in Redis, not in run_events", async (t) => {
  const c = await cluster(t, echoHoldingSlow(t));
  if (!c) return;
  const [a, b] = await Promise.all([c.start(), c.start(["--api-only"])]);
  const ok = (await (await fetch(`${b.url}/ok`)).json()) as {
    ok: boolean;
    database: { ok: boolean };
    stream: { backend: string; ok: boolean };
  };
  assert.deepEqual([ok.ok, ok.database.ok, ok.stream], [true, true, { backend: "redis", ok: true }]);

  const { thread, fast, streamed } = await assertRunSeenAcross(a, b);

  // Join from an id on B: strictly the events after it, numbered on from it, and end.
  const full = parseSse(
    await readSse(
      await fetch(`${b.url}/threads/${thread.thread_id}/runs/${fast.run_id}/stream`, {
        headers: { "last-event-id": "-1" },
      }),
    ),
  );
  const replay = parseSse(
    await readSse(
      await fetch(`${b.url}/threads/${thread.thread_id}/runs/${fast.run_id}/stream`, {
        headers: { "last-event-id": full[1]!.id! },
      }),
    ),
  );
  assert.deepEqual(
    replay.map((frame) => frame.id),
    full.slice(2).map((frame) => frame.id),
  );
  assert.equal(replay.at(-1)?.event, "end");
  assert.equal(full.length, streamed.length, "the same run as the SDK's stream");

  // Where the events are: one stream per run under the prefix, expiring; none in Postgres.
  assert.ok((await c.redis.keys()).includes(`${c.redis.prefix}run:${fast.run_id}`));
  const db = new pg.Client({ connectionString: c.dbUrl });
  await db.connect();
  try {
    assert.equal((await db.query("SELECT count(*)::int AS n FROM run_events")).rows[0].n, 0);
  } finally {
    await db.end();
  }

  // Cancel from B reaches A (the only worker), and B's follower sees the end.
  const slow = await a.client.runs.create(thread.thread_id, "lead_agent", human("slow"));
  await until(() => c.fake.requests.some((request) => lastUserText(request) === "slow"), 15_000, "the slow model call");
  const watching = collect(b.client.runs.joinStream(thread.thread_id, slow.run_id, { lastEventId: "-1" }));
  await b.client.runs.cancel(thread.thread_id, slow.run_id, true, "interrupt");
  const seen = await watching;
  assert.equal(seen[0]?.event, "metadata");
  assert.equal(seen.at(-1)?.event, "end");
  assert.equal((await a.client.runs.get(thread.thread_id, slow.run_id)).status, "interrupted");
});

test("redis streams: an unreachable Redis stops serve at start with exit 2 naming stream.url", async (t) => {
  const home = createTempHome();
  t.after(() => home.cleanup());
  const config = path.join(home.path, "config.yaml");
  writeFileSync(
    config,
    [
      "models:",
      "  - {name: demo, use: demo}",
      "sandbox: {use: local}",
      "stream: {backend: redis, url: 'redis://127.0.0.1:1'}",
      "",
    ].join("\n"),
  );
  const procs: ServeProcess[] = [];
  await assert.rejects(
    serve(config, home.path, procs),
    /serve exited 2: .*Cannot reach Redis at redis:\/\/127\.0\.0\.1:1 .*fix stream\.url/s,
  );
  writeFileSync(
    config,
    [
      "models:",
      "  - {name: demo, use: demo}",
      "sandbox: {use: local}",
      "stream: {backend: redis, url: 'http://cache:6379'}",
      "",
    ].join("\n"),
  );
  await assert.rejects(serve(config, home.path, procs), /serve exited 2: .*stream\.url must start with redis:\/\//s);
});
