/**
 * `server.run_workers`: the runs, streaming and human-in-the-loop files again, with every run executed on
 * one of two worker threads (runs/thread-pool.ts) instead of the HTTP thread: streaming every mode, join
 * and rejoin from an event id, cancel (interrupt and rollback), a failing model, stateless runs,
 * approval interrupts and resume, through the official SDK Client. The pool itself is checked first.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startTestServer } from "./helpers.js";

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

await import("./runs.test.js");
await import("./streaming.test.js");
await import("./human-in-the-loop.test.js");
