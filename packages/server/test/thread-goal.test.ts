/**
 * The thread's goal over the LangGraph API: a client sets it with a state update (on a new thread
 * too), the state route returns it, every run's model request carries it, and `null` clears it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startTestServer } from "./helpers.js";

const say = (text: string) => ({ messages: [{ role: "user", content: text }] });
const goal = { objective: "Ship the beta", set_at: "2026-01-01T00:00:00.000Z" };

test("a goal set by state update is in the thread state and in each model request until cleared", async () => {
  const t = await startTestServer();
  try {
    const thread = await t.client.threads.create();
    await t.client.threads.updateState(thread.thread_id, { values: { goal } });
    const before = await t.client.threads.getState<{ goal: typeof goal | null }>(thread.thread_id);
    assert.deepEqual(before.values.goal, goal, "set before the thread's first run");
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("hello") });
    const state = await t.client.threads.getState<{ goal: typeof goal | null }>(thread.thread_id);
    assert.deepEqual(state.values.goal, goal, "a run keeps the goal");
    assert.match(JSON.stringify(t.fake.requests.at(-1)!.messages), /<thread_goal>[^"]*Ship the beta/);
    assert.deepEqual((await t.client.threads.get<{ goal: typeof goal }>(thread.thread_id)).values?.goal, goal);

    await t.client.threads.updateState(thread.thread_id, { values: { goal: null } });
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("again") });
    assert.equal((await t.client.threads.getState<{ goal: unknown }>(thread.thread_id)).values.goal, null);
    assert.doesNotMatch(JSON.stringify(t.fake.requests.at(-1)!.messages), /thread_goal/);
    const bad = await fetch(`${t.url}/threads/${thread.thread_id}/state`, {
      method: "POST",
      body: JSON.stringify({ values: { goal: "Ship it" } }),
    });
    assert.equal(bad.status, 422);
    assert.match(((await bad.json()) as { detail: string }).detail, /"values\.goal": give \{ objective, set_at \}/);
  } finally {
    await t.close();
  }
});

test("DeerFlow's frontend /goal: PUT, GET and DELETE /api/threads/{id}/goal, on a chat not created yet too", async () => {
  const t = await startTestServer();
  try {
    // A new chat: the frontend's thread id exists only in the browser until the first message.
    const threadId = crypto.randomUUID();
    const goalUrl = `${t.url}/api/threads/${threadId}/goal`;
    assert.deepEqual(await (await fetch(goalUrl)).json(), { goal: null });

    const set = await fetch(goalUrl, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ objective: "  Ship   the beta  " }),
    });
    assert.equal(set.status, 200);
    const { goal: wire } = (await set.json()) as { goal: Record<string, unknown> };
    assert.equal(wire.objective, "Ship the beta");
    assert.equal(wire.status, "active");
    assert.equal(wire.continuation_count, 0);
    assert.equal(typeof wire.created_at, "string");
    assert.deepEqual(((await (await fetch(goalUrl)).json()) as { goal: unknown }).goal, wire);
    // The frontend then creates the thread (useStream's submit with its id) and sends its first message.
    const created = await t.client.threads.create({ threadId, metadata: { agent_name: "lead" } });
    assert.equal(created.thread_id, threadId, "the client's create answers the thread /goal made");
    assert.deepEqual(created.metadata, { agent_name: "lead" });
    await assert.rejects(t.client.threads.create({ threadId }), /HTTP 409/, "only once");
    await t.client.runs.wait(threadId, "lead_agent", { input: say("hello") });
    assert.match(JSON.stringify(t.fake.requests.at(-1)!.messages), /<thread_goal>[^"]*Ship the beta/);

    const empty = await fetch(goalUrl, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ objective: "   " }),
    });
    assert.equal(empty.status, 422);
    assert.match(((await empty.json()) as { detail: string }).detail, /"objective": A goal needs some text/);

    assert.deepEqual(await (await fetch(goalUrl, { method: "DELETE" })).json(), { goal: null });
    assert.equal((await t.client.threads.getState<{ goal: unknown }>(threadId)).values.goal, null);
  } finally {
    await t.close();
  }
});
