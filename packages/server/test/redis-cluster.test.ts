/**
 * `stream: {backend: redis}`: two `deerflow serve` processes on one Postgres and one Redis, where the
 * run events travel through Redis Streams and runs stay in Postgres. Real processes, a fresh database and
 * key prefix per test, the official SDK Client, the fake OpenAI server as the model. Skips with the reason
 * when Postgres or Redis is not reachable.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { createTempHome, type FakeOpenAIServer, startFakeOpenAIServer, testDatabase } from "@deerflow/harness/testing";
import { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { collect, gate, lastUserText, parseSse, readSse, until } from "./helpers.js";
import { testRedis, type TestRedis } from "./redis.js";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../cli/dist/main.js");

interface Proc {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exited: Promise<number | null>;
  client: Client;
  url: string;
}

/** Starts `deerflow serve` with a config; resolves once it listens (or rejects with its stderr). */
async function serve(config: string, home: string, procs: Proc[], args: string[] = []): Promise<Proc> {
  const child = spawn(process.execPath, [cli, "serve", "--port", "0", "--config", config, ...args], {
    env: { ...process.env, DEER_FLOW_HOME: home, DEER_FLOW_API_KEYS: "", DEER_FLOW_RUN_LEASE_MS: "3000", REDIS_URL: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (chunk) => (out.stdout += chunk));
  child.stderr!.on("data", (chunk) => (out.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const proc = { child, out, exited } as Proc;
  procs.push(proc);
  await Promise.race([
    until(() => /listening on (http:\/\/\S+)/.test(out.stdout), 30_000, "the server's URL"),
    exited.then((code) => {
      throw new Error(`serve exited ${code}: ${out.stderr}`);
    }),
  ]);
  proc.url = /listening on (http:\/\/\S+)/.exec(out.stdout)![1]!;
  proc.client = new Client({ apiUrl: proc.url });
  return proc;
}

/** A fresh database and key prefix, a shared home and config with `stream.backend: redis`. */
async function cluster(t: import("node:test").TestContext, script: Parameters<typeof startFakeOpenAIServer>[0]["script"]) {
  const redis = await testRedis();
  if ("skip" in redis) {
    t.skip(redis.skip);
    return null;
  }
  const db = await testDatabase();
  if ("skip" in db) {
    await redis.cleanup();
    t.skip(db.skip);
    return null;
  }
  const fake: FakeOpenAIServer = await startFakeOpenAIServer({ script });
  const home = createTempHome();
  const config = path.join(home.path, "config.yaml");
  writeFileSync(
    config,
    [
      "models:",
      `  - {name: fake, use: openai, model: fake-model, api_key: x, base_url: '${fake.url}', max_retries: 0}`,
      "sandbox: {use: local}",
      "memory: {enabled: false}",
      "title: {enabled: false}",
      `database: {backend: postgres, url: '${db.url}'}`,
      `stream: {backend: redis, url: '${redis.url}', key_prefix: '${redis.prefix}'}`,
      "",
    ].join("\n"),
  );
  const procs: Proc[] = [];
  t.after(async () => {
    for (const proc of procs) proc.child.kill("SIGKILL");
    await Promise.all(procs.map((proc) => proc.exited));
    await fake.close();
    home.cleanup();
    await db.drop();
    await redis.cleanup();
  });
  return { fake, redis: redis as TestRedis, dbUrl: db.url, start: (args?: string[]) => serve(config, home.path, procs, args) };
}

const human = (content: string) => ({ input: { messages: [{ role: "user", content }] } });
type Messages = { messages: { type: string; content: unknown }[] };

test("redis streams: a run created on A is streamed, replayed from an id, joined and cancelled on B; its events live in Redis, not in run_events", async (t) => {
  const block = gate();
  t.after(() => block.open());
  const c = await cluster(t, async (body) => {
    if (lastUserText(body) === "slow") await block.wait;
    return { content: `echo ${lastUserText(body)}` };
  });
  if (!c) return;
  const [a, b] = await Promise.all([c.start(), c.start(["--api-only"])]);
  const ok = (await (await fetch(`${b.url}/ok`)).json()) as { ok: boolean; database: { ok: boolean }; stream: { backend: string; ok: boolean } };
  assert.deepEqual([ok.ok, ok.database.ok, ok.stream], [true, true, { backend: "redis", ok: true }]);

  const thread = await a.client.threads.create();
  const fast = await a.client.runs.create(thread.thread_id, "lead_agent", { ...human("hello"), streamMode: ["values", "messages-tuple"] });
  const streamed = await collect(b.client.runs.joinStream(thread.thread_id, fast.run_id, { lastEventId: "-1", streamMode: ["values", "messages-tuple"] }));
  const names = streamed.map((part) => part.event);
  assert.equal(names[0], "metadata");
  assert.ok(names.includes("values") && names.includes("messages"), names.join(","));
  const joined = (await b.client.runs.join(thread.thread_id, fast.run_id)) as Messages;
  assert.equal(joined.messages.at(-1)!.content, "echo hello");

  // Join from an id on B: strictly the events after it, numbered on from it, and end.
  const full = parseSse(await readSse(await fetch(`${b.url}/threads/${thread.thread_id}/runs/${fast.run_id}/stream`, { headers: { "last-event-id": "-1" } })));
  const replay = parseSse(await readSse(await fetch(`${b.url}/threads/${thread.thread_id}/runs/${fast.run_id}/stream`, { headers: { "last-event-id": full[1]!.id! } })));
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
  writeFileSync(config, ["models:", "  - {name: demo, use: demo}", "sandbox: {use: local}", "stream: {backend: redis, url: 'redis://127.0.0.1:1'}", ""].join("\n"));
  const procs: Proc[] = [];
  await assert.rejects(serve(config, home.path, procs), /serve exited 2: .*Cannot reach Redis at redis:\/\/127\.0\.0\.1:1 .*fix stream\.url/s);
  writeFileSync(config, ["models:", "  - {name: demo, use: demo}", "sandbox: {use: local}", "stream: {backend: redis, url: 'http://cache:6379'}", ""].join("\n"));
  await assert.rejects(serve(config, home.path, procs), /serve exited 2: .*stream\.url must start with redis:\/\//s);
});
