/** Thread and assistant routes through the SDK: CRUD, search, state, history, delete, assistants. */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { startTestServer } from "./helpers.js";

const say = (text: string) => ({ messages: [{ role: "user", content: text }] });
type Values = { messages: { type: string; content: string }[]; title?: string };

test("threads: create with if_exists, get, patch, search (metadata, status, sort, pagination), count", async () => {
  const t = await startTestServer();
  try {
    const a = await t.client.threads.create({ threadId: "thread-a", metadata: { team: "x", n: 1 } });
    assert.equal(a.status, "idle");
    await assert.rejects(t.client.threads.create({ threadId: "thread-a" }), /HTTP 409/);
    assert.equal(
      (await t.client.threads.create({ threadId: "thread-a", ifExists: "do_nothing" })).thread_id,
      "thread-a",
    );
    await t.client.threads.create({ threadId: "thread-b", metadata: { team: "y" } });
    await t.client.threads.create({ threadId: "thread-c", metadata: { team: "x", n: 2 } });
    await assert.rejects(t.client.threads.get("nope"), /HTTP 404/);

    const patched = await t.client.threads.update("thread-a", { metadata: { pinned: true } });
    assert.deepEqual(patched.metadata, { team: "x", n: 1, pinned: true }, "metadata is merged");

    const team = await t.client.threads.search({ metadata: { team: "x" }, sortBy: "thread_id", sortOrder: "asc" });
    assert.deepEqual(
      team.map((thread) => thread.thread_id),
      ["thread-a", "thread-c"],
    );
    const response = await fetch(`${t.url}/threads/search`, {
      method: "POST",
      body: JSON.stringify({ limit: 2, sort_by: "created_at", sort_order: "asc" }),
    });
    assert.equal(response.headers.get("x-pagination-total"), "3");
    assert.equal(response.headers.get("x-pagination-next"), "2");
    assert.deepEqual(
      ((await response.json()) as { thread_id: string }[]).map((thread) => thread.thread_id),
      ["thread-a", "thread-b"],
    );
    assert.equal((await t.client.threads.search({ status: "busy" })).length, 0);
    assert.equal(await t.client.threads.count({ metadata: { team: "x" } }), 2);
    const bad = await fetch(`${t.url}/threads/search`, { method: "POST", body: JSON.stringify({ limit: "ten" }) });
    assert.equal(bad.status, 422);
    assert.match(((await bad.json()) as { detail: string }).detail, /"limit"/);
  } finally {
    await t.close();
  }
});

test("state: empty thread, after a run, update (rename), at a checkpoint; history", async () => {
  const t = await startTestServer();
  try {
    const thread = await t.client.threads.create();
    const empty = await t.client.threads.getState(thread.thread_id);
    assert.equal(empty.checkpoint, null);
    assert.deepEqual(empty.values, {});
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("hello") });
    const state = await t.client.threads.getState(thread.thread_id);
    assert.equal((state.values as Values).messages.length, 2);
    assert.equal(state.checkpoint.thread_id, thread.thread_id);
    assert.equal(state.checkpoint.checkpoint_ns, "");
    assert.ok(state.parent_checkpoint?.checkpoint_id);

    const updated = await t.client.threads.updateState(thread.thread_id, { values: { title: "Renamed" } });
    assert.ok((updated as unknown as { checkpoint: { checkpoint_id: string } }).checkpoint.checkpoint_id);
    assert.equal(((await t.client.threads.getState(thread.thread_id)).values as Values).title, "Renamed");
    assert.equal(
      ((await t.client.threads.get(thread.thread_id)).values as Values).title,
      "Renamed",
      "the thread's values follow the update",
    );

    const earlier = await t.client.threads.getState(thread.thread_id, state.parent_checkpoint!.checkpoint_id!);
    assert.equal(earlier.checkpoint.checkpoint_id, state.parent_checkpoint!.checkpoint_id);
    const byObject = await t.client.threads.getState(thread.thread_id, {
      checkpoint_id: state.checkpoint.checkpoint_id,
    } as never);
    assert.equal(byObject.checkpoint.checkpoint_id, state.checkpoint.checkpoint_id);

    const history = await t.client.threads.getHistory(thread.thread_id, { limit: 3 });
    assert.equal(history.length, 3);
    assert.equal(history[1]!.checkpoint.checkpoint_id, state.checkpoint.checkpoint_id);

    const copy = await t.client.threads.copy(thread.thread_id);
    assert.notEqual(copy.thread_id, thread.thread_id);
    assert.equal(((await t.client.threads.getState(copy.thread_id)).values as Values).title, "Renamed");
    await t.client.runs.wait(copy.thread_id, "lead_agent", { input: say("only in the copy") });
    assert.equal(((await t.client.threads.getState(copy.thread_id)).values as Values).messages.length, 4);
    assert.equal(
      ((await t.client.threads.getState(thread.thread_id)).values as Values).messages.length,
      2,
      "the original is untouched",
    );
  } finally {
    await t.close();
  }
});

test("delete removes checkpoints, runs and files; a second delete is a 404", async () => {
  const t = await startTestServer();
  try {
    const thread = await t.client.threads.create();
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("hello") });
    const dir = path.join(t.harness.home, "threads", thread.thread_id);
    mkdirSync(path.join(dir, "user-data", "outputs"), { recursive: true });
    writeFileSync(path.join(dir, "user-data", "outputs", "a.txt"), "x");
    await t.client.threads.delete(thread.thread_id);
    assert.equal(existsSync(dir), false);
    await assert.rejects(t.client.threads.get(thread.thread_id), /HTTP 404/);
    await assert.rejects(t.client.threads.getState(thread.thread_id), /HTTP 404/);
    assert.deepEqual(t.harness.listThreadIds(), []);
    const again = await fetch(`${t.url}/api/threads/${thread.thread_id}`, { method: "DELETE" });
    assert.equal(again.status, 404);
  } finally {
    await t.close();
  }
});

test("a thread created by the CLI (checkpoints only) is visible to the server", async () => {
  const t = await startTestServer();
  try {
    await t.harness.agent().invoke(say("from the cli") as never, { configurable: { thread_id: "cli-thread" } });
    const thread = await t.client.threads.get("cli-thread");
    assert.equal((thread.values as Values).messages[0]!.content, "from the cli");
    assert.equal(thread.status, "idle");
  } finally {
    await t.close();
  }
});

test("assistants: lead_agent and custom agents; get by graph id or UUID; graph and schemas", async () => {
  const t = await startTestServer();
  try {
    mkdirSync(path.join(t.harness.home, "agents", "researcher"), { recursive: true });
    const all = await t.client.assistants.search({ graphId: "lead_agent" });
    assert.deepEqual(
      all.map((assistant) => assistant.name),
      ["lead_agent", "researcher"],
    );
    const lead = await t.client.assistants.get("lead_agent");
    assert.equal(lead.graph_id, "lead_agent");
    assert.equal(lead.metadata?.created_by, "system");
    assert.equal((await t.client.assistants.get(lead.assistant_id)).name, "lead_agent");
    await assert.rejects(t.client.assistants.get("nobody"), /HTTP 404/);
    const graph = await t.client.assistants.getGraph("lead_agent");
    assert.ok((graph.nodes as unknown[]).length > 0);
    const schemas = await t.client.assistants.getSchemas("lead_agent");
    assert.ok((schemas.context_schema as { properties: Record<string, unknown> }).properties.model_name);
    const researcher = all.find((assistant) => assistant.name === "researcher")!;
    const thread = await t.client.threads.create();
    await t.client.runs.wait(thread.thread_id, researcher.assistant_id, { input: say("hi") });
    const stored = await t.client.threads.get(thread.thread_id);
    assert.equal(stored.metadata?.assistant_id, researcher.assistant_id);
    assert.ok(
      t.fake.requests.at(-1)!.messages.some((message) => JSON.stringify(message.content).includes("researcher")),
      "the custom agent's name reaches its prompt",
    );
  } finally {
    await t.close();
  }
});
