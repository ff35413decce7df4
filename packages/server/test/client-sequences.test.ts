/**
 * The call sequences real clients make (server-contract §A.9 useStream, §B.2 DeerFlow's frontend,
 * §C agent-chat-ui), replayed with the official SDK, including reload-and-rejoin of a running run, and
 * agent-chat-ui's regenerate and edit (through the SDK's own useStream core, `agent-chat-ui.ts`) under
 * the default checkpoint retention.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message } from "@langchain/langgraph-sdk";
import { type AgentChatUi, agentChatUi, danglingParents, numberedAnswers, textOf, twoTurns } from "./agent-chat-ui.js";
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

/** The body of the last `runs/stream` request the client sent. */
function lastRunBody(ui: AgentChatUi) {
  return ui.requests.filter((request) => request.path.endsWith("/runs/stream")).at(-1)!.body!;
}

test("agent-chat-ui, default retention: regenerate re-runs the last turn from its question and keeps the first turn", async () => {
  const t = await startTestServer({ script: numberedAnswers() });
  try {
    const { ui, threadId } = await twoTurns(t.url);
    try {
      assert.ok(
        ui.requests.some((request) => request.path.endsWith("/history") && request.body?.limit === 10),
        "the client reads the last 10 history states",
      );
      const history = await t.client.threads.getHistory(threadId, { limit: 10 });
      const question = history.findLast((state) => (state.values as { messages: Message[] }).messages?.length === 3)!;

      await ui.regenerate(ui.messages().at(-1)!);
      assert.deepEqual(ui.errors, [], "the run did not fail");
      const expected = [
        "human: first question",
        "ai: answer 1 to first question",
        "human: second question",
        "ai: answer 3 to second question",
      ];
      assert.deepEqual(ui.transcript(), expected);
      const body = lastRunBody(ui);
      assert.equal(body.input, undefined, "regenerate sends no input");
      assert.equal(
        (body.checkpoint as { checkpoint_id: string }).checkpoint_id,
        question.checkpoint.checkpoint_id,
        "it forks from the run's first step: the second question applied, before its answer",
      );
      const state = await t.client.threads.getState<{ messages: Message[] }>(threadId);
      assert.deepEqual(
        state.values.messages.map((message) => `${message.type}: ${textOf(message)}`),
        expected,
      );
      assert.equal(ui.branchOptions(ui.messages().at(-1)!)?.length, 2, "the answer has a branch picker: 2 / 2");
      assert.deepEqual(await danglingParents(t.client, threadId), [], "every parent link names a kept checkpoint");
    } finally {
      ui.close();
    }
  } finally {
    await t.close();
  }
});

test("agent-chat-ui, default retention: editing the second message keeps the first turn and replaces the second", async () => {
  const t = await startTestServer({ script: numberedAnswers() });
  try {
    const { ui, threadId } = await twoTurns(t.url);
    try {
      const history = await t.client.threads.getHistory(threadId, { limit: 10 });
      const firstTurn = history.findLast((state) => (state.values as { messages: Message[] }).messages?.length === 2)!;

      await ui.edit(ui.messages()[2]!, "second question, edited");
      assert.deepEqual(ui.errors, []);
      const expected = [
        "human: first question",
        "ai: answer 1 to first question",
        "human: second question, edited",
        "ai: answer 3 to second question, edited",
      ];
      const state = await t.client.threads.getState<{ messages: Message[] }>(threadId);
      assert.deepEqual(
        state.values.messages.map((message) => `${message.type}: ${textOf(message)}`),
        expected,
        "the thread keeps the first turn (it held only the edited turn before)",
      );
      assert.deepEqual(ui.transcript(), expected);
      const body = lastRunBody(ui);
      assert.deepEqual(body.input, { messages: [{ type: "human", content: "second question, edited" }] });
      assert.equal(
        (body.checkpoint as { checkpoint_id: string }).checkpoint_id,
        firstTurn.checkpoint.checkpoint_id,
        "it forks from the end of the first turn",
      );
      assert.equal(ui.branchOptions(ui.messages()[2]!)?.length, 2, "the edited message has a branch picker");
      assert.deepEqual(await danglingParents(t.client, threadId), []);

      // Reopened later (a reload), the thread shows the same conversation.
      const reloaded = await agentChatUi(t.url, threadId);
      assert.deepEqual(reloaded.transcript(), expected);
      reloaded.close();
    } finally {
      ui.close();
    }
  } finally {
    await t.close();
  }
});

test("agent-chat-ui, default retention: editing the first message starts the conversation over", async () => {
  const t = await startTestServer({ script: numberedAnswers() });
  try {
    const { ui, threadId } = await twoTurns(t.url);
    try {
      await ui.edit(ui.messages()[0]!, "first question, edited");
      assert.deepEqual(ui.errors, []);
      const expected = ["human: first question, edited", "ai: answer 3 to first question, edited"];
      assert.deepEqual(ui.transcript(), expected);
      const state = await t.client.threads.getState<{ messages: Message[] }>(threadId);
      assert.deepEqual(
        state.values.messages.map((message) => `${message.type}: ${textOf(message)}`),
        expected,
      );
      assert.deepEqual(await danglingParents(t.client, threadId), []);
    } finally {
      ui.close();
    }
  } finally {
    await t.close();
  }
});

test("a fork names its checkpoint as `checkpoint` or `checkpoint_id`; one the thread does not have is a 404, not an empty state", async () => {
  const t = await startTestServer({ script: numberedAnswers() });
  try {
    const thread = await t.client.threads.create();
    for (const text of ["one", "two"])
      await t.client.runs.wait(thread.thread_id, "lead_agent", {
        input: { messages: [{ role: "user", content: text }] },
      });
    const history = await t.client.threads.getHistory(thread.thread_id, { limit: 10 });
    const answer = history.findLast((state) => (state.values as { messages: Message[] }).messages?.length === 4)!;
    const transcript = async () =>
      (await t.client.threads.getState<{ messages: Message[] }>(thread.thread_id)).values.messages.map(textOf);

    // The SDK's `checkpointId` option (body `checkpoint_id`), then its `checkpoint` object.
    await t.client.runs.wait(thread.thread_id, "lead_agent", {
      input: null,
      checkpointId: answer.parent_checkpoint!.checkpoint_id!,
    });
    assert.deepEqual(await transcript(), ["one", "answer 1 to one", "two", "answer 3 to two"]);
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: null, checkpoint: answer.parent_checkpoint! });
    assert.deepEqual(await transcript(), ["one", "answer 1 to one", "two", "answer 4 to two"]);

    const runs = (await t.client.runs.list(thread.thread_id)).length;
    const missing = crypto.randomUUID();
    await assert.rejects(
      t.client.runs.wait(thread.thread_id, "lead_agent", {
        input: { messages: [{ role: "user", content: "edited" }] },
        checkpoint: { checkpoint_id: missing, checkpoint_ns: "" } as never,
      }),
      new RegExp(`HTTP 404.*Checkpoint ${missing} of thread ${thread.thread_id} not found`),
    );
    assert.equal((await t.client.runs.list(thread.thread_id)).length, runs, "no run was created");
    assert.deepEqual(
      await transcript(),
      ["one", "answer 1 to one", "two", "answer 4 to two"],
      "the thread is as it was",
    );
  } finally {
    await t.close();
  }
});
