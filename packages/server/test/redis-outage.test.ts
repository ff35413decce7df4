/**
 * A Redis (`stream.backend: redis`) that goes away mid-run and comes back empty, as a restart without
 * persistence does: the run settles, its follower is not left hanging, the server keeps answering and the
 * thread takes the next run. Needs `redis-server` on the PATH to run a private Redis (the shared one must
 * not be restarted); skips with the reason otherwise.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer as createNetServer } from "node:net";
import { test } from "node:test";
import { createClient } from "@redis/client";
import { collect, gate, lastUserText, startTestServer, until } from "./helpers.js";

/** A free port the OS picked (released at once for redis-server to bind). */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts redis-server on `port` without persistence; resolves once it answers. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  await until(
    async () => {
      const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
      client.on("error", () => {});
      try {
        await client.connect();
        await client.ping();
        return true;
      } catch {
        return false;
      } finally {
        if (client.isOpen) client.destroy();
      }
    },
    10_000,
    "redis-server",
  );
  return child;
}

test("redis outage mid-run: the run settles, its follower ends, the server answers and the thread runs again", async (t) => {
  if (spawnSync("redis-server", ["--version"]).error) {
    const reason = "redis-server is not on the PATH; it runs a private Redis to stop and start.";
    console.log(`# skipped: ${reason}`);
    return t.skip(reason);
  }
  const port = await freePort();
  let redis = await startRedis(port);
  t.after(() => redis.kill("SIGKILL"));
  const block = gate();
  t.after(() => block.open());
  const s = await startTestServer({
    yaml: `stream: {backend: redis, url: 'redis://127.0.0.1:${port}'}`,
    script: async (body) => {
      if (lastUserText(body) === "slow") await block.wait;
      return { content: `echo ${lastUserText(body)}` };
    },
  });
  t.after(() => s.close());
  const thread = await s.client.threads.create();
  const run = await s.client.runs.create(thread.thread_id, "lead_agent", {
    input: { messages: [{ role: "user", content: "slow" }] },
    streamMode: ["values"],
  });
  await until(() => s.fake.requests.some((request) => lastUserText(request) === "slow"), 15_000, "the slow model call");
  const following = collect(
    s.client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1", streamMode: ["values"] }),
  ).catch((error: Error) => error);
  await new Promise((resolve) => setTimeout(resolve, 200));

  redis.kill("SIGKILL");
  await new Promise((resolve) => redis.once("exit", resolve));
  block.open();
  await new Promise((resolve) => setTimeout(resolve, 500));
  redis = await startRedis(port);

  await until(
    async () => ["success", "error"].includes((await s.client.runs.get(thread.thread_id, run.run_id)).status),
    30_000,
    "the run to settle",
  );
  // Commands wait for Redis while it is away, so the run goes on into a stream begun anew; the follower
  // (whose blocking read the outage broke, and whom the SDK reconnected) is told its ids are gone.
  assert.equal((await s.client.runs.get(thread.thread_id, run.run_id)).status, "success");
  const seen = await following;
  assert.ok(!(seen instanceof Error), String(seen));
  assert.equal(seen[0]?.event, "metadata");
  assert.ok(["gap", "end"].includes(seen.at(-1)!.event), seen.map((part) => part.event).join(","));
  const ok = await fetch(`${s.url}/ok`);
  assert.equal(ok.status, 200);
  const again = (await s.client.runs.wait(thread.thread_id, "lead_agent", {
    input: { messages: [{ role: "user", content: "again" }] },
  })) as { messages: { content: unknown }[] };
  assert.equal(again.messages.at(-1)!.content, "echo again");
});
