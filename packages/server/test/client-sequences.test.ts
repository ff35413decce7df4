/**
 * The call sequences real clients make (server-contract §A.9 useStream, §B.2 DeerFlow's frontend,
 * §C agent-chat-ui), replayed with the official SDK, including reload-and-rejoin of a running run.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { collect, gate, lastUserText, startTestServer, until } from "./helpers.js";

type Values = { messages: { type: string; content: string }[]; title?: string };

test("agent-chat-ui: info, thread list by graph_id, new thread, history, resumable stream with subgraphs", async () => {
  const t = await startTestServer();
  try {
    assert.equal((await fetch(`${t.url}/info`)).ok, true);
    assert.deepEqual(await t.client.threads.search({ metadata: { graph_id: "lead_agent" }, limit: 100 }), []);
    const thread = await t.client.threads.create({});
    assert.deepEqual(await t.client.threads.getHistory(thread.thread_id, { limit: 10 }), []);
    const parts = await collect(
      t.client.runs.stream(thread.thread_id, "lead_agent", {
        input: { messages: [{ type: "human", content: "hello", id: "m1" }] },
        streamMode: ["values", "messages-tuple", "custom"],
        streamSubgraphs: true,
        streamResumable: true,
        onDisconnect: "continue",
      }),
    );
    assert.equal(parts.at(-1)!.event, "end");
    const listed = await t.client.threads.search({ metadata: { graph_id: "lead_agent" }, limit: 100 });
    assert.equal(listed.length, 1);
    assert.equal((listed[0]!.values as Values).messages[0]!.content, "hello", "the list label is the first message");
    const history = await t.client.threads.getHistory(thread.thread_id, { limit: 10 });
    assert.ok(history.length > 0);
    // Regenerate: fork from the checkpoint before the answer.
    const parent = history.find((entry) => (entry.values as Values).messages?.length === 1)!;
    const forked = await collect(
      t.client.runs.stream(thread.thread_id, "lead_agent", {
        input: null,
        checkpoint: parent.checkpoint,
        streamMode: ["values"],
      }),
    );
    const final = forked.filter((part) => part.event === "values").at(-1)!.data as Values;
    assert.deepEqual(
      final.messages.map((message) => message.type),
      ["human", "ai"],
      "the fork replaced the answer instead of appending",
    );
  } finally {
    await t.close();
  }
});

test("DeerFlow's frontend: context run options, metadata update, rename, reload-and-rejoin a running run, stop", async () => {
  const block = gate();
  const t = await startTestServer({
    script: async (body) => {
      if (lastUserText(body) === "long task") await block.wait;
      return { content: `done: ${lastUserText(body)}` };
    },
  });
  try {
    const threadId = crypto.randomUUID();
    let created: { run_id: string; thread_id?: string } | undefined;
    const controller = new AbortController();
    const first = collect(
      t.client.runs.stream(threadId, "lead_agent", {
        input: { messages: [{ type: "human", content: "long task", additional_kwargs: { files: [] } }] },
        streamMode: ["values", "messages-tuple", "updates", "custom"],
        streamResumable: true,
        onDisconnect: "continue",
        ifNotExists: "create",
        config: { recursion_limit: 1000 },
        context: {
          thinking_enabled: false,
          is_plan_mode: true,
          subagent_enabled: false,
          reasoning_effort: "medium",
          thread_id: threadId,
          model_name: "fake",
        },
        signal: controller.signal,
        onRunCreated: (meta) => void (created = meta),
      }),
    ).catch(() => []);
    await until(() => created !== undefined, 5000, "onRunCreated");
    assert.equal(created!.thread_id, threadId);
    await t.client.threads.update(threadId, { metadata: { agent_name: "default" } });
    await until(() => t.fake.requests.some((body) => lastUserText(body) === "long task"), 10_000, "model call");

    // The user reloads the page: the fetch is aborted, the run goes on.
    controller.abort();
    await first;
    const run = await t.client.runs.get(threadId, created!.run_id);
    assert.equal(run.status, "running");
    const rejoined = collect(
      t.client.runs.joinStream(threadId, created!.run_id, {
        lastEventId: "-1",
        streamMode: ["values", "messages-tuple", "updates", "custom"],
      }),
    );
    block.open();
    const parts = await rejoined;
    assert.equal(parts[0]!.event, "metadata", "the rejoin replays from the start");
    assert.equal(parts.at(-1)!.event, "end");
    const values = parts.filter((part) => part.event === "values").at(-1)!.data as Values & { todos?: unknown };
    assert.equal(values.messages.at(-1)!.content, "done: long task");

    await t.client.threads.updateState(threadId, { values: { title: "My task" } });
    const listed = await t.client.threads.search({
      limit: 50,
      sortBy: "updated_at",
      sortOrder: "desc",
      select: ["thread_id", "updated_at", "values", "metadata"],
    });
    assert.equal((listed[0]!.values as Values).title, "My task");
    assert.equal(listed[0]!.metadata?.agent_name, "default");
    assert.equal((await t.client.runs.list(threadId))[0]!.status, "success");
    // Stop on a finished run: DeerFlow's wrapper swallows exactly this 409.
    await assert.rejects(t.client.runs.cancel(threadId, created!.run_id), /HTTP 409.*is not cancellable/);
    assert.equal((await t.client.threads.getHistory(threadId, { limit: 1 })).length, 1);
  } finally {
    block.open();
    await t.close();
  }
});

test("deleting a thread with a running run stops the run and removes everything", async () => {
  const block = gate();
  const t = await startTestServer({
    script: async () => {
      await block.wait;
      return { content: "never seen" };
    },
  });
  try {
    const thread = await t.client.threads.create();
    const run = await t.client.runs.create(thread.thread_id, "lead_agent", {
      input: { messages: [{ role: "user", content: "x" }] },
    });
    await until(() => t.fake.requests.length > 0, 10_000, "model call");
    const joining = collect(t.client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1" }));
    await t.client.threads.delete(thread.thread_id);
    const parts = await joining;
    assert.equal(parts.at(-1)!.event, "end", "readers of the deleted thread's run get end");
    await assert.rejects(t.client.threads.get(thread.thread_id), /HTTP 404/);
    assert.deepEqual(t.harness.listThreadIds(), []);
  } finally {
    block.open();
    await t.close();
  }
});
