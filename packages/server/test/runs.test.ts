/**
 * Run lifecycle through the SDK: wait, create + join, join-stream replay (Last-Event-ID, -1, gap),
 * cancel (interrupt, rollback, not cancellable), list/get/delete, failures, stateless runs and
 * thread status transitions.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { collect, gate, lastUserText, parseSse, readSse, startTestServer, until } from "./helpers.js";

const say = (text: string) => ({ messages: [{ role: "user", content: text }] });
type Values = { messages: { type: string; content: string }[] };

/** A test server whose model answers "ok", holding a "slow" message until `block` opens. */
async function startSlowModelServer() {
  const block = gate();
  const t = await startTestServer({
    script: async (body) => {
      if (lastUserText(body) === "slow") await block.wait;
      return { content: "ok" };
    },
  });
  return { block, t };
}

test("wait returns the final values; create then join returns them too; list and get see the runs", async () => {
  const t = await startTestServer({ script: (body) => ({ content: `echo: ${lastUserText(body)}` }) });
  try {
    const thread = await t.client.threads.create();
    const waited = (await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("one") })) as Values;
    assert.equal(waited.messages.at(-1)!.content, "echo: one");

    const run = await t.client.runs.create(thread.thread_id, "lead_agent", { input: say("two") });
    assert.ok(["pending", "running"].includes(run.status));
    const joined = (await t.client.runs.join(thread.thread_id, run.run_id)) as Values;
    assert.equal(joined.messages.at(-1)!.content, "echo: two");
    const again = (await t.client.runs.join(thread.thread_id, run.run_id)) as Values;
    assert.equal(again.messages.length, 4, "joining a finished run answers at once");

    const runs = await t.client.runs.list(thread.thread_id);
    assert.equal(runs.length, 2);
    assert.equal(runs[0]!.run_id, run.run_id, "newest first");
    assert.ok(runs.every((entry) => entry.status === "success"));
    assert.equal((await t.client.runs.get(thread.thread_id, run.run_id)).status, "success");
    const selected = await t.client.runs.list(thread.thread_id, { select: ["run_id", "status"] });
    assert.deepEqual(Object.keys(selected[0]!).sort(), ["run_id", "status"]);
    await assert.rejects(t.client.runs.get(thread.thread_id, "00000000-0000-0000-0000-000000000000"), /HTTP 404/);
    await t.client.runs.delete(thread.thread_id, run.run_id);
    assert.equal((await t.client.runs.list(thread.thread_id)).length, 1);
  } finally {
    await t.close();
  }
});

test("join-stream replays from an event id, from -1, and sends gap when the cursor is older than the log", async () => {
  const t = await startTestServer({ maxEventsPerRun: 6 });
  try {
    const thread = await t.client.threads.create();
    const run = await t.client.runs.create(thread.thread_id, "lead_agent", {
      input: say("hi"),
      streamMode: ["values", "updates"],
    });
    await t.client.runs.join(thread.thread_id, run.run_id);
    const all = await collect(t.client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1" }));
    assert.equal(all.at(-1)!.event, "end");
    assert.ok(all.length <= 6, "the log is bounded");
    const firstKept = Number((all[0] as { id: string }).id);
    assert.ok(firstKept > 1, "older events were dropped");
    const from = (all[1] as { id: string }).id;
    const after = await collect(t.client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: from }));
    assert.deepEqual(
      after.map((part) => (part as { id: string }).id),
      all.slice(2).map((part) => (part as { id: string }).id),
      "replay starts right after the given id",
    );
    const gapResponse = await fetch(`${t.url}/threads/${thread.thread_id}/runs/${run.run_id}/stream`, {
      headers: { "last-event-id": "1" },
    });
    const frames = parseSse(await readSse(gapResponse));
    assert.equal(frames.length, 1);
    assert.equal(frames[0]!.event, "gap");
    const gap = JSON.parse(frames[0]!.data!) as { code: string; earliest_available_event_id: string; recovery: string };
    assert.equal(gap.code, "stream_replay_gap");
    assert.equal(gap.earliest_available_event_id, String(firstKept));
    assert.equal(gap.recovery, "reload_durable_state");
  } finally {
    await t.close();
  }
});

test("cancel interrupts a running run (status interrupted, thread idle, user message kept); finished runs are not cancellable", async () => {
  const { block, t } = await startSlowModelServer();
  try {
    const thread = await t.client.threads.create();
    const run = await t.client.runs.create(thread.thread_id, "lead_agent", { input: say("slow") });
    await until(
      async () => (await t.client.runs.get(thread.thread_id, run.run_id)).status === "running",
      10_000,
      "run running",
    );
    assert.equal((await t.client.threads.get(thread.thread_id)).status, "busy");
    await t.client.runs.cancel(thread.thread_id, run.run_id, true);
    assert.equal((await t.client.runs.get(thread.thread_id, run.run_id)).status, "interrupted");
    const after = await t.client.threads.get(thread.thread_id);
    assert.equal(after.status, "idle");
    const state = await t.client.threads.getState(thread.thread_id);
    assert.equal((state.values as Values).messages[0]!.content, "slow", "the user's message is kept");
    await assert.rejects(t.client.runs.cancel(thread.thread_id, run.run_id), /HTTP 409.*not cancellable/);
    const stream = await collect(t.client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1" }));
    assert.equal(stream.at(-1)!.event, "end");
    assert.ok(!stream.some((part) => part.event === "error"), "a cancelled run sends no error event");
  } finally {
    block.open();
    await t.close();
  }
});

test("cancel with rollback restores the thread to before the run and deletes the run", async () => {
  const block = gate();
  const t = await startTestServer({
    script: async (body) => {
      if (lastUserText(body) === "second") await block.wait;
      return { content: `answer to ${lastUserText(body)}` };
    },
  });
  try {
    const thread = await t.client.threads.create();
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("first") });
    const before = await t.client.threads.getState(thread.thread_id);
    const run = await t.client.runs.create(thread.thread_id, "lead_agent", { input: say("second") });
    await until(
      async () =>
        (await t.client.threads.getState(thread.thread_id)).checkpoint?.checkpoint_id !==
        before.checkpoint.checkpoint_id,
      10_000,
      "input checkpointed",
    );
    await t.client.runs.cancel(thread.thread_id, run.run_id, true, "rollback");
    const after = await t.client.threads.getState(thread.thread_id);
    assert.equal(after.checkpoint.checkpoint_id, before.checkpoint.checkpoint_id);
    assert.deepEqual(
      (after.values as Values).messages.map((message) => message.content),
      ["first", "answer to first"],
    );
    await assert.rejects(t.client.runs.get(thread.thread_id, run.run_id), /HTTP 404/);
    assert.equal((await t.client.threads.get(thread.thread_id)).status, "idle");
  } finally {
    block.open();
    await t.close();
  }
});

test("a model that fails gives error then end, names the model, and the thread can be retried", async () => {
  let fail = true;
  const t = await startTestServer({
    script: () => (fail ? { status: 500, error: { message: "upstream exploded" } } : { content: "recovered" }),
  });
  try {
    const thread = await t.client.threads.create();
    const parts = await collect(t.client.runs.stream(thread.thread_id, "lead_agent", { input: say("try") }));
    assert.deepEqual(
      parts.slice(-2).map((part) => part.event),
      ["error", "end"],
    );
    const error = parts.at(-2)!.data as { error: string; message: string };
    assert.match(error.message, /Model "fake"/);
    assert.ok(!error.message.includes("\n"));
    assert.ok(!/at .*\.ts:\d+/.test(error.message), "no stack trace");
    const failed = await t.client.threads.get(thread.thread_id);
    assert.equal(failed.status, "error");
    assert.equal(((failed.values as Values).messages ?? [])[0]?.content, "try", "the user's message is kept");
    fail = false;
    const retried = (await t.client.runs.wait(thread.thread_id, "lead_agent", { input: null })) as Values;
    assert.equal(retried.messages.at(-1)!.content, "recovered");
    assert.equal((await t.client.threads.get(thread.thread_id)).status, "idle");
    await assert.rejects(
      t.client.runs.wait(thread.thread_id, "lead_agent", {
        input: say("x"),
        config: { configurable: { model_name: "nope" } },
      }),
      /HTTP 422.*nope/,
    );
  } finally {
    await t.close();
  }
});

test("stateless runs: stream, wait and create+join on a temporary thread that is deleted afterwards", async () => {
  const t = await startTestServer({ script: (body) => ({ content: `stateless ${lastUserText(body)}` }) });
  try {
    let runId = "";
    const parts = await collect(
      t.client.runs.stream(null, "lead_agent", { input: say("a"), onRunCreated: (meta) => void (runId = meta.run_id) }),
    );
    assert.equal(parts.at(-1)!.event, "end");
    assert.ok(runId);
    const waited = (await t.client.runs.wait(null, "lead_agent", { input: say("b") })) as Values;
    assert.equal(waited.messages.at(-1)!.content, "stateless b");
    const created = await t.client.runs.create(null, "lead_agent", { input: say("c") });
    const response = await fetch(`${t.url}/runs/${created.run_id}/join`);
    assert.equal(((await response.json()) as Values).messages.at(-1)!.content, "stateless c");
    await until(
      async () => (await t.client.threads.search({ limit: 100 })).length === 0,
      5000,
      "temporary threads deleted",
    );
    const kept = await t.client.runs.wait(null, "lead_agent", { input: say("d"), onCompletion: "keep" } as never);
    assert.ok(kept);
    assert.equal((await t.client.threads.search({ limit: 100 })).length, 1, "on_completion keep keeps the thread");
  } finally {
    await t.close();
  }
});

test("bad run requests: unknown field, wrong type, unknown assistant, unknown thread, if_not_exists create", async () => {
  const t = await startTestServer();
  try {
    const thread = await t.client.threads.create();
    const post = (path: string, body: unknown) =>
      fetch(`${t.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const unknown = await post(`/threads/${thread.thread_id}/runs`, { assistant_id: "lead_agent", bogus: 1 });
    assert.equal(unknown.status, 422);
    assert.match(((await unknown.json()) as { detail: string }).detail, /bogus/);
    const wrong = await post(`/threads/${thread.thread_id}/runs`, {
      assistant_id: "lead_agent",
      stream_mode: "everything",
    });
    assert.equal(wrong.status, 422);
    assert.match(((await wrong.json()) as { detail: string }).detail, /stream_mode/);
    const wrongOption = await post(`/threads/${thread.thread_id}/runs`, {
      assistant_id: "lead_agent",
      context: { is_plan_mode: "yes" },
    });
    assert.equal(wrongOption.status, 422);
    assert.match(((await wrongOption.json()) as { detail: string }).detail, /is_plan_mode/);
    assert.equal((await post(`/threads/${thread.thread_id}/runs`, { assistant_id: "nobody" })).status, 404);
    assert.equal((await post(`/threads/missing-thread/runs`, { assistant_id: "lead_agent" })).status, 404);
    assert.equal((await post(`/threads/bad%20id/runs`, { assistant_id: "lead_agent" })).status, 422);
    const created = await post(`/threads/new-thread/runs/wait`, {
      assistant_id: "lead_agent",
      input: say("hi"),
      if_not_exists: "create",
      context: { thread_id: "ignored", reasoning_effort: "high", __internal: 1 },
    });
    assert.equal(created.status, 200);
    assert.equal(((await created.json()) as Values).messages.length, 2);
    const made = await t.client.threads.get("new-thread");
    assert.equal(made.status, "idle");
  } finally {
    await t.close();
  }
});

test("stateless get, join-stream and cancel; recursion_limit is clamped; Prefer: return=minimal", async () => {
  const { block, t } = await startSlowModelServer();
  try {
    const created = await t.client.runs.create(null, "lead_agent", {
      input: say("slow"),
      config: { recursion_limit: 5000 },
    });
    const fetched = (await (await fetch(`${t.url}/runs/${created.run_id}`)).json()) as {
      status: string;
      kwargs: { recursion_limit: number };
    };
    assert.equal(fetched.kwargs.recursion_limit, 1000);
    const joining = collect(t.client.runs.joinStream(null, created.run_id, { lastEventId: "-1" }));
    const cancel = await fetch(`${t.url}/runs/${created.run_id}/cancel`, { method: "POST" });
    assert.equal(cancel.status, 202);
    const parts = await joining;
    assert.equal(parts[0]!.event, "metadata");
    assert.equal(parts.at(-1)!.event, "end");
    await until(
      async () =>
        ((await (await fetch(`${t.url}/runs/${created.run_id}`)).json()) as { status: string }).status ===
        "interrupted",
      5000,
      "stateless run interrupted",
    );
    assert.equal((await fetch(`${t.url}/runs/${created.run_id}/cancel`, { method: "POST" })).status, 409);

    const thread = await t.client.threads.create();
    const minimal = await fetch(`${t.url}/threads/${thread.thread_id}`, {
      method: "PATCH",
      headers: { prefer: "return=minimal" },
      body: JSON.stringify({ metadata: { a: 1 } }),
    });
    assert.equal(minimal.status, 204);
    assert.equal((await t.client.threads.get(thread.thread_id)).metadata?.a, 1);
  } finally {
    block.open();
    await t.close();
  }
});

test("a finished stateless run's record goes once its events expire", async () => {
  const t = await startTestServer({ eventRetentionMs: 300 });
  try {
    const run = await t.client.runs.create(null, "lead_agent", { input: say("hi") });
    await fetch(`${t.url}/runs/${run.run_id}/join`).then((response) => response.json());
    assert.equal((await fetch(`${t.url}/runs/${run.run_id}`)).status, 200, "get answers right after the run");
    await until(async () => (await fetch(`${t.url}/runs/${run.run_id}`)).status === 404, 5000, "record removed");
  } finally {
    await t.close();
  }
});
