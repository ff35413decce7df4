/**
 * DeerFlow's frontend's regenerate and edit (bytedance/deer-flow `frontend/src/core/threads/hooks.ts`:
 * `regenerateMessage`, `editAndRegenerateMessage`, `submitPreparedReplay`), replayed call for call: the
 * SDK's `useStream` core (`StreamOrchestrator`, `fetchStateHistory: {limit: 1}`) on the `/api` mount the
 * frontend's `/api/langgraph` rewrite reaches, `fetch` for the gateway's prepare routes, then
 * `submit(prepared.input, {checkpoint, metadata, ...})` under the default checkpoint retention.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client, type Message } from "@langchain/langgraph-sdk";
import { StreamOrchestrator } from "@langchain/langgraph-sdk/ui";
import { danglingParents, numberedAnswers, textOf } from "./agent-chat-ui.js";
import { gate, lastUserText, startTestServer, type TestServer, until } from "./helpers.js";

type Values = { messages?: Message[]; title?: string };
type Prepared = {
  input: Values;
  checkpoint: { checkpoint_ns: string; checkpoint_id: string; checkpoint_map: unknown };
  metadata: Record<string, unknown>;
  target_run_id: string;
  replacement_human_message_id?: string;
  source_message_ids?: string[];
};

/** What `useThreadStream` puts in every run's `context` (flash mode, the thread's own id). */
function runContext(threadId: string) {
  return {
    mode: "flash",
    model_name: "fake",
    thinking_enabled: false,
    is_plan_mode: false,
    subagent_enabled: false,
    thread_id: threadId,
  };
}

/** A DeerFlow chat page on a new thread. */
async function deerflowChat(t: TestServer) {
  const errors: unknown[] = [];
  const runBodies: Record<string, unknown>[] = [];
  const client = new Client({
    apiUrl: `${t.url}/api`,
    apiKey: null,
    onRequest: (target, init) => {
      if (target.pathname.endsWith("/runs/stream") && typeof init.body === "string") {
        runBodies.push(JSON.parse(init.body) as Record<string, unknown>);
      }
      return init;
    },
  });
  const stream = new StreamOrchestrator<Values>(
    {
      assistantId: "lead_agent",
      fetchStateHistory: { limit: 1 },
      onError: (error) => void errors.push(error),
      onUpdateEvent: () => {},
      onCustomEvent: () => {},
    },
    { getClient: () => client, getAssistantId: () => "lead_agent", getMessagesKey: () => "messages" },
  );
  const threadId = crypto.randomUUID();
  const submitOptions = {
    threadId,
    streamResumable: true,
    config: { recursion_limit: 1000 },
    context: runContext(threadId),
  };
  /** `POST /api/threads/{id}/runs/...prepare` as the hook sends it; a non-2xx becomes the toast's error. */
  const prepare = async (route: string, body: Record<string, unknown>) => {
    const response = await fetch(`${t.url}/api/threads/${encodeURIComponent(threadId)}/runs/${route}/prepare`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      credentials: "include",
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${response.status}: ${((await response.json()) as { detail: string }).detail}`);
    return (await response.json()) as Prepared;
  };
  const replay = async (prepared: Prepared) => {
    await stream.submit(prepared.input, {
      ...submitOptions,
      checkpoint: prepared.checkpoint as never,
      metadata: prepared.metadata,
    });
    return prepared;
  };
  return {
    threadId,
    errors,
    runBodies,
    messages: () => stream.messages as Message[],
    transcript: () => (stream.messages as Message[]).map((message) => `${message.type}: ${textOf(message)}`),
    prepare,
    async send(text: string) {
      const message = { type: "human", content: [{ type: "text", text }], additional_kwargs: {} } as Message;
      await stream.submit({ messages: [message] }, submitOptions);
    },
    regenerate: async (messageId: string) => replay(await prepare("regenerate", { message_id: messageId })),
    edit: async (humanMessageId: string, replacementText: string) =>
      replay(await prepare("edit-regenerate", { human_message_id: humanMessageId, replacement_text: replacementText })),
    close: () => stream.dispose(),
  };
}

async function twoTurns(t: TestServer) {
  const chat = await deerflowChat(t);
  await chat.send("first question");
  await chat.send("second question");
  assert.deepEqual(chat.transcript(), [
    "human: first question",
    "ai: answer 1 to first question",
    "human: second question",
    "ai: answer 2 to second question",
  ]);
  return chat;
}

async function stateLines(t: TestServer, threadId: string): Promise<string[]> {
  const state = await t.client.threads.getState<{ messages: Message[] }>(threadId);
  return state.values.messages.map((message) => `${message.type}: ${textOf(message)}`);
}

/** The checkpoint where the first turn ended (2 messages, nothing pending). */
async function endOfFirstTurn(t: TestServer, threadId: string): Promise<string> {
  const history = await t.client.threads.getHistory<{ messages: Message[] }>(threadId, { limit: 100 });
  return history.find((state) => state.values.messages?.length === 2 && state.next.length === 0)!.checkpoint
    .checkpoint_id!;
}

test("DeerFlow's frontend: regenerate replaces the last answer with a new run and keeps the first turn", async () => {
  const t = await startTestServer({ script: numberedAnswers() });
  const chat = await twoTurns(t);
  try {
    const [, , question, answer] = chat.messages();
    const [secondRun] = await t.client.runs.list(chat.threadId, { limit: 1 });
    const prepared = await chat.regenerate(answer!.id!);
    assert.deepEqual(chat.errors, [], "the run did not fail");

    assert.deepEqual(prepared.input.messages, [
      {
        type: "human",
        id: question!.id,
        name: "user-input",
        content: [{ type: "text", text: "second question" }],
        additional_kwargs: {},
      },
    ]);
    const base = await endOfFirstTurn(t, chat.threadId);
    assert.deepEqual(prepared.checkpoint, { checkpoint_ns: "", checkpoint_id: base, checkpoint_map: null });
    assert.equal(prepared.target_run_id, secondRun!.run_id);
    assert.deepEqual(prepared.metadata, {
      regenerate_from_message_id: answer!.id,
      regenerate_from_run_id: secondRun!.run_id,
      regenerate_checkpoint_id: base,
    });
    const body = chat.runBodies.at(-1)!;
    assert.equal((body.checkpoint as { checkpoint_id: string }).checkpoint_id, base, "the run forks from there");

    const expected = [
      "human: first question",
      "ai: answer 1 to first question",
      "human: second question",
      "ai: answer 3 to second question",
    ];
    assert.deepEqual(chat.transcript(), expected);
    assert.deepEqual(await stateLines(t, chat.threadId), expected);
    const runs = await t.client.runs.list(chat.threadId);
    assert.equal(runs.length, 3, "the regenerate is a new run");
    assert.equal(runs[0]!.metadata?.regenerate_from_run_id, secondRun!.run_id, "it records which run it replaces");
    const page = (await (await fetch(`${t.url}/api/threads/${chat.threadId}/messages/page`)).json()) as {
      data: { content: Message; run_id: string | null }[];
    };
    assert.deepEqual(
      page.data.map((row) => textOf(row.content)),
      ["first question", "answer 1 to first question", "second question", "answer 3 to second question"],
      "after a reload the durable message list shows the new answer only",
    );
    assert.deepEqual(
      page.data.slice(2).map((row) => row.run_id),
      [runs[0]!.run_id, runs[0]!.run_id],
      "the replayed turn belongs to the new run (the old run's stamps were not sent back)",
    );
    assert.deepEqual(await danglingParents(t.client, chat.threadId), []);

    // Regenerating again works from the new answer (the head is now on the forked branch).
    await chat.regenerate(chat.messages().at(-1)!.id!);
    assert.equal(chat.transcript().at(-1), "ai: answer 4 to second question");
    assert.deepEqual((await stateLines(t, chat.threadId)).slice(0, 3), expected.slice(0, 3));
  } finally {
    chat.close();
    await t.close();
  }
});

test("DeerFlow's frontend: editing the second message keeps the first turn and replaces the second", async () => {
  const t = await startTestServer({ script: numberedAnswers() });
  const chat = await twoTurns(t);
  try {
    const [, , question, answer] = chat.messages();
    const [secondRun] = await t.client.runs.list(chat.threadId, { limit: 1 });
    const prepared = await chat.edit(question!.id!, "  second question, edited\n");
    assert.deepEqual(chat.errors, []);

    const replacement = prepared.replacement_human_message_id!;
    assert.notEqual(replacement, question!.id);
    assert.deepEqual(prepared.source_message_ids, [question!.id, answer!.id], "the ids the page hides");
    assert.deepEqual(prepared.input.messages, [
      {
        type: "human",
        id: replacement,
        name: "user-input",
        content: [{ type: "text", text: "second question, edited" }],
        additional_kwargs: {},
      },
    ]);
    const base = await endOfFirstTurn(t, chat.threadId);
    assert.equal(prepared.checkpoint.checkpoint_id, base);
    assert.deepEqual(prepared.metadata, {
      replay_kind: "edit",
      regenerate_from_message_id: answer!.id,
      regenerate_from_run_id: secondRun!.run_id,
      regenerate_checkpoint_id: base,
      edit_from_message_id: question!.id,
      edit_message_id: replacement,
      edit_version_group_id: question!.id,
    });

    const expected = [
      "human: first question",
      "ai: answer 1 to first question",
      "human: second question, edited",
      "ai: answer 3 to second question, edited",
    ];
    assert.deepEqual(chat.transcript(), expected);
    assert.deepEqual(await stateLines(t, chat.threadId), expected);
    assert.equal(chat.messages()[2]!.id, replacement, "the new message has the id the page was told");
    assert.equal((await t.client.runs.list(chat.threadId))[0]!.metadata?.replay_kind, "edit");
    assert.deepEqual(await danglingParents(t.client, chat.threadId), []);
  } finally {
    chat.close();
    await t.close();
  }
});

test("DeerFlow's frontend: the first turn regenerates and edits from the thread's root", async () => {
  const t = await startTestServer({ script: numberedAnswers() });
  const chat = await deerflowChat(t);
  try {
    await chat.send("only question");
    await chat.regenerate(chat.messages().at(-1)!.id!);
    assert.deepEqual(chat.errors, []);
    assert.deepEqual(await stateLines(t, chat.threadId), ["human: only question", "ai: answer 2 to only question"]);
    await chat.edit(chat.messages()[0]!.id!, "better question");
    assert.deepEqual(chat.errors, []);
    assert.deepEqual(await stateLines(t, chat.threadId), ["human: better question", "ai: answer 3 to better question"]);
    assert.deepEqual(chat.transcript(), ["human: better question", "ai: answer 3 to better question"]);
  } finally {
    chat.close();
    await t.close();
  }
});

test("DeerFlow's frontend, checkpoints.retention all: regenerate then edit fork before the turn too", async () => {
  const t = await startTestServer({ script: numberedAnswers(), yaml: "checkpoints: {retention: all}" });
  const chat = await twoTurns(t);
  try {
    await chat.regenerate(chat.messages().at(-1)!.id!);
    await chat.edit(chat.messages()[2]!.id!, "second question, edited");
    assert.deepEqual(chat.errors, []);
    const expected = [
      "human: first question",
      "ai: answer 1 to first question",
      "human: second question, edited",
      "ai: answer 4 to second question, edited",
    ];
    assert.deepEqual(await stateLines(t, chat.threadId), expected);
    assert.deepEqual(chat.transcript(), expected);
  } finally {
    chat.close();
    await t.close();
  }
});

test("regenerate/edit prepare: unknown thread or message, earlier turns, bad edits and bad bodies are refused", async () => {
  const t = await startTestServer({ script: numberedAnswers() });
  const chat = await twoTurns(t);
  try {
    const [firstQuestion, firstAnswer, question] = chat.messages();
    const refused = async (route: string, body: Record<string, unknown>) =>
      (await chat.prepare(route, body).then(
        () => "accepted",
        (error: Error) => error.message,
      )) as string;

    const other = crypto.randomUUID();
    const response = await fetch(`${t.url}/api/threads/${other}/runs/regenerate/prepare`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ message_id: "x" }),
    });
    assert.equal(response.status, 404);
    assert.match(((await response.json()) as { detail: string }).detail, new RegExp(`Thread ${other} not found`));
    const bare = await fetch(`${t.url}/threads/${other}/runs/edit-regenerate/prepare`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ human_message_id: "x", replacement_text: "y" }),
    });
    assert.equal(bare.status, 404, "the `/` mount serves the route too");

    assert.match(await refused("regenerate", { message_id: "nope" }), /^404: Message nope in thread .* not found/);
    assert.match(await refused("regenerate", { message_id: firstAnswer!.id }), /^409: Only the latest answer/);
    assert.match(await refused("regenerate", { message_id: question!.id }), /^409: .*not an assistant answer/);
    assert.match(
      await refused("edit-regenerate", { human_message_id: firstQuestion!.id, replacement_text: "changed" }),
      /^409: Only the latest question can be edited/,
    );
    assert.match(
      await refused("edit-regenerate", { human_message_id: question!.id, replacement_text: " second question " }),
      /^409: The edited message is unchanged/,
    );
    assert.match(
      await refused("edit-regenerate", { human_message_id: question!.id, replacement_text: " \n" }),
      /^409: The edited message is empty/,
    );
    assert.match(
      await refused("edit-regenerate", { human_message_id: "nope", replacement_text: "x" }),
      /^404: Message nope/,
    );
    assert.match(
      await refused("edit-regenerate", { human_message_id: question!.id, replacement_text: "" }),
      /^422: Invalid body field "replacement_text"/,
    );
    assert.match(await refused("regenerate", {}), /^422: Invalid body field "message_id"/);
    assert.equal((await t.client.runs.list(chat.threadId)).length, 2, "no run was started");
  } finally {
    chat.close();
    await t.close();
  }
});

test("regenerate/edit prepare: refused while a run is writing the thread", async () => {
  const block = gate();
  const t = await startTestServer({
    script: async (body) => {
      if (lastUserText(body) === "slow") await block.wait;
      return { content: `answer to ${lastUserText(body)}` };
    },
  });
  const chat = await deerflowChat(t);
  try {
    await chat.send("fast");
    const answer = chat.messages().at(-1)!;
    const run = await t.client.runs.create(chat.threadId, "lead_agent", {
      input: { messages: [{ type: "human", content: "slow" }] },
    });
    await until(() => t.fake.requests.some((body) => lastUserText(body) === "slow"), 10_000, "the slow model call");
    await assert.rejects(
      chat.prepare("regenerate", { message_id: answer.id }),
      new RegExp(`^Error: 409: Thread ${chat.threadId} has a run in progress \\(${run.run_id}\\)`),
    );
    block.open();
    await t.client.runs.join(chat.threadId, run.run_id);
    const prepared = await chat.prepare("regenerate", {
      message_id: (await t.client.threads.getState<{ messages: Message[] }>(chat.threadId)).values.messages.at(-1)!.id,
    });
    assert.equal(prepared.target_run_id, run.run_id, "once it ended, its answer is the one to regenerate");
  } finally {
    block.open();
    chat.close();
    await t.close();
  }
});

test("regenerate prepare: with checkpoints.retention latest there is no earlier checkpoint, and the error says why", async () => {
  const t = await startTestServer({ script: numberedAnswers(), yaml: "checkpoints: {retention: latest}" });
  const chat = await deerflowChat(t);
  try {
    await chat.send("question");
    await assert.rejects(
      chat.prepare("regenerate", { message_id: chat.messages().at(-1)!.id }),
      /409: Thread .* keeps no checkpoint from before message .*checkpoints\.retention: latest/,
    );
  } finally {
    chat.close();
    await t.close();
  }
});
