/**
 * One thread runs one run at a time; many threads run at once. Multitask strategies, client
 * disconnects under both on_disconnect values, breakpoints and a restart between a run and its join.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { collect, gate, lastUserText, startTestServer, until } from "./helpers.js";

const say = (text: string) => ({ messages: [{ role: "user", content: text }] });
type Values = { messages: { type: string; content: string }[] };

/** A script that blocks on the message "slow" until `block` opens and echoes everything else. */
function blockingScript(block: { wait: Promise<void> }, calls: string[] = []) {
  return async (body: { messages: Array<{ role: string; content?: unknown }> }) => {
    const text = lastUserText(body);
    calls.push(text);
    if (text === "slow") await block.wait;
    return { content: `echo: ${text}` };
  };
}

async function startSlowRun(t: Awaited<ReturnType<typeof startTestServer>>, threadId: string) {
  const run = await t.client.runs.create(threadId, "lead_agent", { input: say("slow") });
  await until(async () => t.fake.requests.some((body) => lastUserText(body) === "slow"), 10_000, "the slow model call");
  return run;
}

test("reject answers 409 while the thread is busy; enqueue runs after, in order", async () => {
  const block = gate();
  const calls: string[] = [];
  const t = await startTestServer({ script: blockingScript(block, calls) });
  try {
    const thread = await t.client.threads.create();
    const first = await startSlowRun(t, thread.thread_id);
    await assert.rejects(
      t.client.runs.create(thread.thread_id, "lead_agent", { input: say("rejected") }),
      /HTTP 409.*already running/,
    );
    const queued = await t.client.runs.create(thread.thread_id, "lead_agent", {
      input: say("queued"),
      multitaskStrategy: "enqueue",
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(
      (await t.client.runs.get(thread.thread_id, queued.run_id)).status,
      "pending",
      "the queued run waits for the running one",
    );
    assert.equal((await t.client.threads.get(thread.thread_id)).status, "busy");
    block.open();
    const result = (await t.client.runs.join(thread.thread_id, queued.run_id)) as Values;
    assert.deepEqual(
      result.messages.map((message) => message.content),
      ["slow", "echo: slow", "queued", "echo: queued"],
    );
    assert.equal((await t.client.runs.get(thread.thread_id, first.run_id)).status, "success");
    assert.deepEqual(calls, ["slow", "queued"]);
    assert.equal((await t.client.threads.get(thread.thread_id)).status, "idle");
  } finally {
    block.open();
    await t.close();
  }
});

test("interrupt stops the running run and the new one continues from its state", async () => {
  const block = gate();
  const t = await startTestServer({ script: blockingScript(block) });
  try {
    const thread = await t.client.threads.create();
    const first = await startSlowRun(t, thread.thread_id);
    const second = await t.client.runs.create(thread.thread_id, "lead_agent", {
      input: say("instead"),
      multitaskStrategy: "interrupt",
    });
    const result = (await t.client.runs.join(thread.thread_id, second.run_id)) as Values;
    assert.equal((await t.client.runs.get(thread.thread_id, first.run_id)).status, "interrupted");
    const contents = result.messages.map((message) => message.content);
    assert.equal(contents[0], "slow", "the interrupted run's input stays in the thread");
    assert.equal(contents.at(-1), "echo: instead");
  } finally {
    block.open();
    await t.close();
  }
});

test("rollback removes the running run and its input; the new run starts from the earlier state", async () => {
  const block = gate();
  const t = await startTestServer({ script: blockingScript(block) });
  try {
    const thread = await t.client.threads.create();
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("before") });
    const first = await startSlowRun(t, thread.thread_id);
    const second = await t.client.runs.create(thread.thread_id, "lead_agent", {
      input: say("instead"),
      multitaskStrategy: "rollback",
    });
    const result = (await t.client.runs.join(thread.thread_id, second.run_id)) as Values;
    assert.deepEqual(
      result.messages.map((message) => message.content),
      ["before", "echo: before", "instead", "echo: instead"],
    );
    await assert.rejects(t.client.runs.get(thread.thread_id, first.run_id), /HTTP 404/);
  } finally {
    block.open();
    await t.close();
  }
});

test("two threads run at the same time", async () => {
  const block = gate();
  const t = await startTestServer({ script: blockingScript(block) });
  try {
    const slowThread = await t.client.threads.create();
    const fastThread = await t.client.threads.create();
    const slow = await startSlowRun(t, slowThread.thread_id);
    const fast = (await t.client.runs.wait(fastThread.thread_id, "lead_agent", { input: say("fast") })) as Values;
    assert.equal(
      fast.messages.at(-1)!.content,
      "echo: fast",
      "the second thread finished while the first was still running",
    );
    assert.equal((await t.client.runs.get(slowThread.thread_id, slow.run_id)).status, "running");
    block.open();
    const result = (await t.client.runs.join(slowThread.thread_id, slow.run_id)) as Values;
    assert.equal(result.messages.at(-1)!.content, "echo: slow");
  } finally {
    block.open();
    await t.close();
  }
});

test("a client that disconnects mid-stream: on_disconnect cancel stops the run, continue keeps it", async () => {
  const block = gate();
  const t = await startTestServer({ script: blockingScript(block) });
  try {
    for (const onDisconnect of ["cancel", "continue"] as const) {
      const thread = await t.client.threads.create();
      const controller = new AbortController();
      let runId = "";
      const reading = collect(
        t.client.runs.stream(thread.thread_id, "lead_agent", {
          input: say("slow"),
          onDisconnect,
          signal: controller.signal,
          onRunCreated: (meta) => void (runId = meta.run_id),
        }),
      ).catch(() => []);
      await until(
        () => runId !== "" && t.fake.requests.filter((body) => lastUserText(body) === "slow").length > 0,
        10_000,
        "run started",
      );
      controller.abort();
      await reading;
      if (onDisconnect === "cancel") {
        await until(
          async () => (await t.client.runs.get(thread.thread_id, runId)).status === "interrupted",
          10_000,
          "run interrupted after disconnect",
        );
        assert.equal((await t.client.threads.get(thread.thread_id)).status, "idle");
      } else {
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal(
          (await t.client.runs.get(thread.thread_id, runId)).status,
          "running",
          "the run goes on without its client",
        );
        block.open();
        const replay = await collect(t.client.runs.joinStream(thread.thread_id, runId, { lastEventId: "-1" }));
        assert.equal(replay[0]!.event, "metadata");
        assert.equal(replay.at(-1)!.event, "end");
        assert.equal((await t.client.runs.get(thread.thread_id, runId)).status, "success");
      }
    }
  } finally {
    block.open();
    await t.close();
  }
});

test("a breakpoint leaves the thread interrupted; a run with null input resumes it", async () => {
  const t = await startTestServer({
    script: (body) =>
      body.messages.some((message) => message.role === "tool")
        ? { content: "listed" }
        : { tool_calls: [{ name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } }] },
  });
  try {
    const thread = await t.client.threads.create();
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("look"), interruptBefore: ["tools"] });
    const paused = await t.client.threads.get(thread.thread_id);
    assert.equal(paused.status, "interrupted");
    const state = await t.client.threads.getState(thread.thread_id);
    assert.deepEqual(state.next, ["tools"]);
    const resumed = (await t.client.runs.wait(thread.thread_id, "lead_agent", { input: null })) as Values;
    assert.equal(resumed.messages.at(-1)!.content, "listed");
    assert.equal((await t.client.threads.get(thread.thread_id)).status, "idle");
  } finally {
    await t.close();
  }
});

test("a server restart between a run and its join: finished runs answer from the store, unfinished ones resume", async () => {
  const block = gate();
  let t = await startTestServer({ script: blockingScript(block), drainGraceMs: 100 });
  try {
    const thread = await t.client.threads.create();
    const done = await t.client.runs.create(thread.thread_id, "lead_agent", { input: say("quick") });
    await t.client.runs.join(thread.thread_id, done.run_id);
    const unfinished = await startSlowRun(t, thread.thread_id);
    t = await t.restart();
    const joined = (await t.client.runs.join(thread.thread_id, done.run_id)) as Values;
    assert.ok(joined.messages.length >= 2, "join of a finished run after a restart returns the thread's values");
    const replay = await collect(t.client.runs.joinStream(thread.thread_id, done.run_id, { lastEventId: "-1" }));
    assert.deepEqual(
      replay.map((part) => part.event),
      ["end"],
      "a finished run without a log ends at once",
    );
    block.open();
    const resumed = (await t.client.runs.join(thread.thread_id, unfinished.run_id)) as Values;
    assert.deepEqual(
      resumed.messages.map((message) => message.content),
      ["quick", "echo: quick", "slow", "echo: slow"],
      "the resumed run did not repeat its input",
    );
    const run = await t.client.runs.get(thread.thread_id, unfinished.run_id);
    assert.equal(run.status, "success");
    assert.equal(
      (run as unknown as { kwargs: { attempt?: number } }).kwargs.attempt,
      2,
      "the second attempt finished the run",
    );
  } finally {
    block.open();
    await t.close();
  }
});

test("a run takes the thread's lease first and releases it after (hook for the CLI's cross-process lease)", async () => {
  const held = gate();
  const events: string[] = [];
  const t = await startTestServer({
    threadLease: async (threadId) => {
      events.push(`wait ${threadId}`);
      await held.wait;
      events.push(`take ${threadId}`);
      return () => events.push(`release ${threadId}`);
    },
  });
  try {
    const thread = await t.client.threads.create({ threadId: "leased" });
    const run = await t.client.runs.create(thread.thread_id, "lead_agent", { input: say("hi") });
    await until(() => events.length > 0, 5000, "lease requested");
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(t.fake.requests.length, 0, "no model call while another process holds the thread");
    held.open();
    await t.client.runs.join(thread.thread_id, run.run_id);
    assert.deepEqual(events, ["wait leased", "take leased", "release leased"]);
  } finally {
    held.open();
    await t.close();
  }
});

test("cancelling queued runs: a pending run is settled at once; cancelMany by thread and status", async () => {
  const block = gate();
  const t = await startTestServer({ script: blockingScript(block) });
  try {
    const thread = await t.client.threads.create();
    const running = await startSlowRun(t, thread.thread_id);
    const queuedA = await t.client.runs.create(thread.thread_id, "lead_agent", {
      input: say("a"),
      multitaskStrategy: "enqueue",
    });
    const queuedB = await t.client.runs.create(thread.thread_id, "lead_agent", {
      input: say("b"),
      multitaskStrategy: "enqueue",
    });
    await t.client.runs.cancel(thread.thread_id, queuedA.run_id);
    assert.equal((await t.client.runs.get(thread.thread_id, queuedA.run_id)).status, "interrupted");
    await t.client.runs.cancelMany({ threadId: thread.thread_id, status: "pending" });
    assert.equal((await t.client.runs.get(thread.thread_id, queuedB.run_id)).status, "interrupted");
    assert.equal(
      (await t.client.runs.get(thread.thread_id, running.run_id)).status,
      "running",
      "status: pending spares the running run",
    );
    block.open();
    const values = (await t.client.runs.join(thread.thread_id, running.run_id)) as Values;
    assert.deepEqual(
      values.messages.map((message) => message.content),
      ["slow", "echo: slow"],
      "cancelled queued runs never ran",
    );
    assert.equal((await t.client.threads.get(thread.thread_id)).status, "idle");
  } finally {
    block.open();
    await t.close();
  }
});

test("while draining, new runs are refused with 503 and the running run still finishes", async () => {
  const block = gate();
  const t = await startTestServer({ script: blockingScript(block), drainGraceMs: 10_000 });
  try {
    const thread = await t.client.threads.create();
    const other = await t.client.threads.create();
    const run = await startSlowRun(t, thread.thread_id);
    const joining = t.client.runs.join(thread.thread_id, run.run_id);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the join's request is in
    const stopping = t.server.stop();
    const refused = await fetch(`${t.url}/threads/${other.thread_id}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "lead_agent", input: say("late") }),
    }).then(
      (response) => response.status,
      () => "connection refused",
    );
    assert.ok(refused === 503 || refused === "connection refused", `got ${refused}`);
    block.open();
    const values = (await joining) as Values;
    assert.equal(values.messages.at(-1)!.content, "echo: slow");
    await stopping;
  } finally {
    block.open();
    await t.close();
  }
});

test("run requests go first: no graph starts or steps while a run request is being answered", {
  // Worker threads have no requests to wait for: their graphs go on (run-threads.test.ts).
  skip: process.env.DEERFLOW_TEST_RUN_WORKERS ? "runs execute on worker threads" : false,
}, async () => {
  const block = gate();
  const calls: string[] = [];
  const t = await startTestServer({ script: blockingScript(block, calls) });
  try {
    // A graph that is running: its model call is blocked.
    const busy = await t.client.threads.create();
    const slow = await startSlowRun(t, busy.thread_id);
    // Another run request is being answered (its body read, its first event not written yet).
    const answered = t.server.context.requestsFirst.begin();
    const thread = await t.client.threads.create();
    const queued = await t.client.runs.create(thread.thread_id, "lead_agent", { input: say("queued") });
    block.open();
    // Requests that are not run requests are answered meanwhile; the graphs wait for their turn.
    for (let round = 0; round < 5; round += 1) {
      assert.equal((await t.client.runs.get(thread.thread_id, queued.run_id)).status, "pending", "not claimed");
      assert.equal((await t.client.runs.get(busy.thread_id, slow.run_id)).status, "running", "stopped at a step");
    }
    assert.deepEqual(calls, ["slow"]);
    answered();
    assert.equal(((await t.client.runs.join(thread.thread_id, queued.run_id)) as Values).messages.length, 2);
    assert.equal((await t.client.runs.get(busy.thread_id, slow.run_id)).status, "success");
    assert.deepEqual(calls.toSorted(), ["queued", "slow"]);
  } finally {
    block.open();
    await t.close();
  }
});
