/**
 * `server.run_workers`: the runs, streaming and human-in-the-loop files again, with every run executed on
 * one of two worker threads (runs/thread-pool.ts) instead of the HTTP thread: streaming every mode, join
 * and rejoin from an event id, cancel (interrupt and rollback), a failing model, stateless runs,
 * approval interrupts and resume, through the official SDK Client. The pool itself is checked first.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { test } from "node:test";
import { gate, lastUserText, startTestServer, until } from "./helpers.js";

process.env.DEERFLOW_TEST_RUN_WORKERS = "2";

test("with run_workers, graphs run on worker threads: the HTTP thread executes none of them", async () => {
  const t = await startTestServer({ script: () => ({ content: "from a thread" }) });
  try {
    let graphsOnHttpThread = 0;
    const agent = t.harness.agent.bind(t.harness);
    // A run on the HTTP thread would stream its graph from here; the threads build their own.
    Object.assign(t.harness, {
      agent: (...args: Parameters<typeof agent>) => {
        const built = agent(...args);
        return {
          ...built,
          graph: new Proxy(built.graph, {
            get(target, key) {
              if (key === "stream" || key === "streamEvents") graphsOnHttpThread += 1;
              const value = Reflect.get(target, key, target) as unknown;
              return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
            },
          }),
        };
      },
    });
    const thread = await t.client.threads.create();
    const values = (await t.client.runs.wait(thread.thread_id, "lead_agent", {
      input: { messages: [{ role: "user", content: "hi" }] },
    })) as { messages: Array<{ content: unknown }> };
    assert.equal(values.messages.at(-1)?.content, "from a thread");
    assert.equal(graphsOnHttpThread, 0);
    assert.equal((await t.client.threads.get(thread.thread_id)).status, "idle");
  } finally {
    await t.close();
  }
});

test("run threads start on demand: one while idle, the next when a run arrives while every thread runs one", async () => {
  const block = gate();
  const t = await startTestServer({
    // One run per thread: the second run can only execute on a second thread.
    maxConcurrentRuns: 2,
    script: async (body) => {
      if (lastUserText(body) === "slow") await block.wait;
      return { content: "ok" };
    },
  });
  const say = (text: string) => ({ messages: [{ role: "user", content: text }] });
  const started = () => t.logs.filter((line) => line.startsWith("run worker thread started")).length;
  /** A worker thread is one more thread of the process (two under tsx, whose hooks have their own). */
  const processThreads = () => readdirSync("/proc/self/task").length;
  try {
    assert.equal(started(), 1, "an idle server has started one of its two threads");
    const idle = processThreads();
    const a = await t.client.threads.create();
    await t.client.runs.wait(a.thread_id, "lead_agent", { input: say("one at a time") });
    assert.equal(started(), 1, "runs one after another need one thread");

    const b = await t.client.threads.create();
    const first = await t.client.runs.create(a.thread_id, "lead_agent", { input: say("slow") });
    await until(() => t.fake.requests.length === 2, 10_000, "the first slow run's model call");
    const second = await t.client.runs.create(b.thread_id, "lead_agent", { input: say("slow") });
    await until(() => t.fake.requests.length === 3, 20_000, "the second slow run's model call, on a second thread");
    assert.equal(started(), 2);
    assert.ok(processThreads() > idle, "the second thread runs in this process");

    block.open();
    await t.client.runs.join(a.thread_id, first.run_id);
    await t.client.runs.join(b.thread_id, second.run_id);
    assert.equal((await t.client.runs.get(a.thread_id, first.run_id)).status, "success");
    assert.equal((await t.client.runs.get(b.thread_id, second.run_id)).status, "success");
  } finally {
    block.open();
    await t.close();
  }
});

await import("./runs.test.js");
await import("./streaming.test.js");
await import("./human-in-the-loop.test.js");
