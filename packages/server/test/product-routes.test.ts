/**
 * DeerFlow's product routes replayed as its frontend sends them (plain fetch under `/api`): follow-up
 * suggestions (config, then the POST after an answer), thumbs up/down (PUT, then DELETE on a second
 * click), branch from an answer, a subagent's steps from the run events, and our export route. Bad input
 * is a 4xx that says what is wrong.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { FOLLOW_UP_INSTRUCTION_START } from "@deerflow/harness";
import { collect, startTestServer, type TestServer } from "./helpers.js";

const send = (body: unknown, method = "POST"): RequestInit => ({
  method,
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});

type Body = { messages: Array<{ role: string; content?: unknown }> };
const isSuggestionCall = (body: Body) =>
  body.messages[0]?.role === "system" && String(body.messages[0].content).startsWith(FOLLOW_UP_INSTRUCTION_START);

/** One finished turn on a new thread; answers the thread and run ids and the messages. */
async function oneTurn(t: TestServer, text = "What is a deer?") {
  const thread = await t.client.threads.create();
  const parts = await collect(
    t.client.runs.stream(thread.thread_id, "lead_agent", { input: { messages: [{ role: "user", content: text }] } }),
  );
  const runId = (parts.find((part) => part.event === "metadata")!.data as { run_id: string }).run_id;
  const state = await t.client.threads.getState<{ messages: Array<{ id: string; type: string; content: unknown }> }>(
    thread.thread_id,
  );
  return { threadId: thread.thread_id, runId, messages: state.values.messages };
}

test("suggestions: the config, then DeerFlow's POST after an answer gets the model's follow-ups", async () => {
  const seen: Body[] = [];
  const t = await startTestServer({
    yaml: "suggestions: {enabled: true, max_suggestions: 2}",
    script: (body: Body) => {
      if (!isSuggestionCall(body)) return { content: "A deer is a hoofed mammal." };
      seen.push(body);
      return {
        content: '<think>hmm</think>```json\n["Where do deer live?", "  What do deer eat?\\n", 3, "Third one?"]\n```',
      };
    },
  });
  try {
    assert.deepEqual(await (await fetch(`${t.url}/api/suggestions/config`)).json(), {
      enabled: true,
      max_suggestions: 2,
    });
    const { threadId } = await oneTurn(t);
    // input-box.tsx: the last six visible messages, n = max_suggestions, the model picked in the UI.
    const response = await fetch(
      `${t.url}/api/threads/${threadId}/suggestions`,
      send({
        messages: [
          { role: "user", content: "What is a deer?" },
          { role: "assistant", content: "A deer is a hoofed mammal." },
        ],
        n: 2,
        model_name: "fake",
      }),
    );
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { suggestions: ["Where do deer live?", "What do deer eat?"] });
    assert.equal(seen.length, 1);
    const prompt = JSON.stringify(seen[0]!.messages);
    assert.match(prompt, /exactly 2/);
    assert.match(prompt, /User: What is a deer\?\\nAssistant: A deer is a hoofed mammal\./);

    // n above the configured maximum is cut to it; n above DeerFlow's limit (5) is a 422.
    const bad = await fetch(`${t.url}/api/threads/${threadId}/suggestions`, send({ messages: [], n: 9 }));
    assert.equal(bad.status, 422);
    assert.match(((await bad.json()) as { detail: string }).detail, /"n"/);
    const noMessages = await fetch(`${t.url}/api/threads/${threadId}/suggestions`, send({ n: 2 }));
    assert.equal(noMessages.status, 422);
    assert.match(((await noMessages.json()) as { detail: string }).detail, /messages/);
    // Nothing to go on: no model call, no suggestions.
    const empty = await fetch(`${t.url}/api/threads/${threadId}/suggestions`, send({ messages: [], n: 2 }));
    assert.deepEqual(await empty.json(), { suggestions: [] });
    const unknownModel = await fetch(
      `${t.url}/api/threads/${threadId}/suggestions`,
      send({ messages: [{ role: "user", content: "x" }], model_name: "nope" }),
    );
    assert.equal(unknownModel.status, 422);
    assert.match(((await unknownModel.json()) as { detail: string }).detail, /model_name.*nope/);
    assert.equal(seen.length, 1);
    const unknownThread = await fetch(
      `${t.url}/api/threads/0190f000-0000-7000-8000-0000000000aa/suggestions`,
      send({ messages: [{ role: "user", content: "x" }] }),
    );
    assert.equal(unknownThread.status, 404);
  } finally {
    await t.close();
  }
});

test("suggestions: off in config answers none without a model call; a failing model answers none", async () => {
  let calls = 0;
  const off = await startTestServer({
    yaml: "suggestions: {enabled: false}",
    script: (body: Body) => {
      if (isSuggestionCall(body)) calls += 1;
      return { content: "ok" };
    },
  });
  try {
    assert.deepEqual(await (await fetch(`${off.url}/api/suggestions/config`)).json(), {
      enabled: false,
      max_suggestions: 3,
    });
    const { threadId } = await oneTurn(off);
    const response = await fetch(
      `${off.url}/api/threads/${threadId}/suggestions`,
      send({ messages: [{ role: "user", content: "hi" }], n: 3 }),
    );
    assert.deepEqual(await response.json(), { suggestions: [] });
    assert.equal(calls, 0);
  } finally {
    await off.close();
  }
  const failing = await startTestServer({
    script: (body: Body) => (isSuggestionCall(body) ? { status: 500 } : { content: "ok" }),
  });
  try {
    const { threadId } = await oneTurn(failing);
    const response = await fetch(
      `${failing.url}/api/threads/${threadId}/suggestions`,
      send({ messages: [{ role: "user", content: "hi" }], n: 3 }),
    );
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { suggestions: [] });
    assert.ok(failing.logs.some((line) => line.startsWith(`suggestions for thread ${threadId}`)));
  } finally {
    await failing.close();
  }
});

test("suggestions: the demo model answers follow-ups that say they are the demo's", async () => {
  const t = await startTestServer({ extraModels: ["{name: demo, use: demo}"] });
  try {
    const { threadId } = await oneTurn(t);
    const response = await fetch(
      `${t.url}/api/threads/${threadId}/suggestions`,
      send({ messages: [{ role: "user", content: "Plan a trip to Kyoto" }], n: 3, model_name: "demo" }),
    );
    const { suggestions } = (await response.json()) as { suggestions: string[] };
    assert.equal(suggestions.length, 3);
    assert.ok(suggestions.every((text) => text.startsWith("(demo model)")));
    assert.match(suggestions[0]!, /Plan a trip to Kyoto/);
  } finally {
    await t.close();
  }
});

test("feedback: DeerFlow's PUT and DELETE, POST per message, list, stats and delete by id", async () => {
  const t = await startTestServer();
  try {
    const { threadId, runId } = await oneTurn(t);
    const base = `${t.url}/api/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}/feedback`;
    // core/api/feedback.ts: upsertFeedback.
    const up = await fetch(base, send({ rating: 1, comment: null }, "PUT"));
    assert.equal(up.status, 200);
    const first = (await up.json()) as Record<string, unknown>;
    assert.deepEqual(
      { ...first, feedback_id: typeof first.feedback_id, created_at: typeof first.created_at },
      {
        feedback_id: "string",
        run_id: runId,
        thread_id: threadId,
        user_id: null,
        message_id: null,
        rating: 1,
        comment: null,
        created_at: "string",
      },
    );
    // Thumbs down with a comment replaces it (one per run and person).
    const down = (await (await fetch(base, send({ rating: -1, comment: "  too short " }, "PUT"))).json()) as {
      feedback_id: string;
      rating: number;
      comment: string;
    };
    assert.deepEqual([down.feedback_id, down.rating, down.comment], [first.feedback_id, -1, "too short"]);
    const onMessage = (await (await fetch(base, send({ rating: 1, message_id: "m1" }))).json()) as {
      feedback_id: string;
      message_id: string;
    };
    assert.equal(onMessage.message_id, "m1");
    const listed = (await (await fetch(base)).json()) as Array<{ rating: number }>;
    assert.deepEqual(listed.map((entry) => entry.rating).sort(), [-1, 1]);
    assert.deepEqual(await (await fetch(`${base}/stats`)).json(), {
      run_id: runId,
      total: 2,
      positive: 1,
      negative: 1,
    });
    // core/api/feedback.ts: deleteFeedback (a second click on the same thumb); a 404 after is fine to it.
    assert.deepEqual(await (await fetch(base, { method: "DELETE" })).json(), { success: true });
    assert.equal((await fetch(base, { method: "DELETE" })).status, 404);
    assert.deepEqual(await (await fetch(`${base}/${onMessage.feedback_id}`, { method: "DELETE" })).json(), {
      success: true,
    });
    assert.deepEqual(await (await fetch(base)).json(), []);

    for (const [body, pattern] of [
      [{ rating: 0 }, /"rating".*1 \(thumbs up\) or -1/],
      [{ rating: 1, comment: "x".repeat(4001) }, /"comment".*4,000/],
      [{ rating: 1, extra: true }, /extra/],
    ] as const) {
      const response = await fetch(base, send(body, "PUT"));
      assert.equal(response.status, 422);
      assert.match(((await response.json()) as { detail: string }).detail, pattern);
    }
    const unknownRun = await fetch(
      `${t.url}/api/threads/${threadId}/runs/0190f000-0000-7000-8000-0000000000ab/feedback`,
      send({ rating: 1 }, "PUT"),
    );
    assert.equal(unknownRun.status, 404);
    // The feedback goes with its thread.
    await fetch(base, send({ rating: 1 }, "PUT"));
    await t.client.threads.delete(threadId);
    const other = await oneTurn(t);
    assert.deepEqual(
      await (await fetch(`${t.url}/api/threads/${other.threadId}/runs/${other.runId}/feedback`)).json(),
      [],
    );
  } finally {
    await t.close();
  }
});

test("branches: DeerFlow's POST makes a new thread up to that answer; the source is unchanged", async () => {
  let turn = 0;
  const t = await startTestServer({ script: () => ({ content: `answer ${++turn}` }) });
  try {
    const { threadId } = await oneTurn(t, "first question");
    await t.client.runs.wait(threadId, "lead_agent", { input: { messages: [{ role: "user", content: "second" }] } });
    await t.client.threads.updateState(threadId, { values: { title: "Deer talk" } });
    fs.mkdirSync(path.join(t.home.path, "threads", threadId, "user-data", "outputs"), { recursive: true });
    fs.writeFileSync(path.join(t.home.path, "threads", threadId, "user-data", "outputs", "a.md"), "file");
    const before = await t.client.threads.getState<{ messages: Array<{ id: string; type: string }> }>(threadId);
    const answers = before.values.messages.filter((message) => message.type === "ai");
    assert.equal(answers.length, 2);

    // core/threads/api.ts: branchThreadFromTurn, from the first (historical) answer.
    const response = await fetch(
      `${t.url}/api/threads/${encodeURIComponent(threadId)}/branches`,
      send({ message_id: answers[0]!.id, message_ids: [answers[0]!.id] }),
    );
    assert.equal(response.status, 200, await response.clone().text());
    const branch = (await response.json()) as Record<string, string>;
    assert.equal(branch.parent_thread_id, threadId);
    assert.equal(branch.branched_from_message_id, answers[0]!.id);
    assert.equal(branch.workspace_clone_mode, "skipped_historical_turn");
    assert.equal(typeof branch.parent_checkpoint_id, "string");
    const branched = await t.client.threads.getState<{
      messages: Array<{ content: unknown; type: string }>;
      title: string;
    }>(branch.thread_id!);
    assert.deepEqual(
      branched.values.messages.map((message) => message.type),
      ["human", "ai"],
    );
    assert.equal(branched.values.messages[1]!.content, "answer 1");
    assert.equal(branched.values.title, "Deer talk (branch)");
    const record = await t.client.threads.get(branch.thread_id!);
    assert.equal(record.metadata?.deerflow_branch, true);
    assert.equal(record.metadata?.branch_parent_thread_id, threadId);
    assert.equal(fs.existsSync(path.join(t.home.path, "threads", branch.thread_id!, "user-data")), false);
    // The source thread is as it was; the branch takes runs of its own.
    const after = await t.client.threads.getState(threadId);
    assert.deepEqual(after.values, before.values);
    const next = (await t.client.runs.wait(branch.thread_id!, "lead_agent", {
      input: { messages: [{ role: "user", content: "third" }] },
    })) as { messages: Array<{ content: unknown }> };
    assert.equal(next.messages.length, 4);

    // From the latest answer, with a title: the files come along.
    const latest = await fetch(
      `${t.url}/api/threads/${threadId}/branches`,
      send({ message_id: answers[1]!.id, message_ids: [answers[1]!.id], title: "Mine" }),
    );
    const second = (await latest.json()) as Record<string, string>;
    assert.equal(second.workspace_clone_mode, "copied");
    assert.equal(
      fs.readFileSync(path.join(t.home.path, "threads", second.thread_id!, "user-data", "outputs", "a.md"), "utf8"),
      "file",
    );
    assert.equal((await t.client.threads.getState<{ title: string }>(second.thread_id!)).values.title, "Mine");

    const human = before.values.messages.find((message) => message.type === "human")!;
    const notAnswer = await fetch(`${t.url}/api/threads/${threadId}/branches`, send({ message_id: human.id }));
    assert.equal(notAnswer.status, 409);
    assert.match(((await notAnswer.json()) as { detail: string }).detail, /cannot be branched/);
    const unknown = await fetch(`${t.url}/api/threads/${threadId}/branches`, send({ message_id: "nope" }));
    assert.equal(unknown.status, 404);
    const empty = await fetch(`${t.url}/api/threads/${threadId}/branches`, send({ message_id: "" }));
    assert.equal(empty.status, 422);
    assert.match(((await empty.json()) as { detail: string }).detail, /message_id/);
  } finally {
    await t.close();
  }
});

test("run events: DeerFlow's subagent steps query pages a finished run's steps", async () => {
  const t = await startTestServer({
    yaml: "subagents: {enabled: true}",
    script: (body: Body) => {
      const all = JSON.stringify(body.messages);
      if (all.includes("You are a subagent")) {
        if (body.messages.some((message) => message.role === "tool")) return { content: "Found nothing." };
        return { tool_calls: [{ name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } }] };
      }
      if (body.messages.some((message) => message.role === "tool")) return { content: "The subagent found nothing." };
      return {
        tool_calls: [
          {
            name: "task",
            arguments: { description: "Look around", prompt: "List the workspace", subagent_type: "general-purpose" },
          },
        ],
      };
    },
  });
  try {
    const thread = await t.client.threads.create();
    const parts = await collect(
      t.client.runs.stream(thread.thread_id, "lead_agent", {
        input: { messages: [{ role: "user", content: "delegate" }] },
        streamMode: ["values", "custom"],
        context: { subagent_enabled: true },
      }),
    );
    const runId = (parts.find((part) => part.event === "metadata")!.data as { run_id: string }).run_id;
    const taskId = (parts.find((part) => part.event === "custom")!.data as { task_id: string }).task_id;
    // core/tasks/api.ts: fetchSubtaskSteps.
    const base = `${t.url}/api/threads/${encodeURIComponent(thread.thread_id)}/runs/${encodeURIComponent(runId)}/events`;
    const params = new URLSearchParams({ event_types: "subagent.step", task_id: taskId, limit: "500" });
    const steps = (await (await fetch(`${base}?${params}`)).json()) as Array<{
      seq: number;
      event_type: string;
      content: { task_id: string; message_index: number; kind: string; tool_calls?: Array<{ name: string }> };
    }>;
    assert.ok(steps.length > 0);
    assert.ok(steps.every((step) => step.event_type === "subagent.step" && step.content.task_id === taskId));
    assert.ok(steps.some((step) => step.content.kind === "ai" && step.content.tool_calls?.[0]?.name === "ls"));
    // Paged with after_seq: a page of one, then the rest.
    const one = (await (
      await fetch(`${base}?${new URLSearchParams({ event_types: "subagent.step", task_id: taskId, limit: "1" })}`)
    ).json()) as Array<{ seq: number }>;
    assert.equal(one.length, 1);
    const rest = (await (
      await fetch(
        `${base}?${new URLSearchParams({ event_types: "subagent.step", task_id: taskId, after_seq: String(one[0]!.seq) })}`,
      )
    ).json()) as Array<{ seq: number }>;
    assert.deepEqual(
      [one[0]!.seq, ...rest.map((step) => step.seq)],
      steps.map((step) => step.seq),
    );
    const all = (await (await fetch(base)).json()) as Array<{ event_type: string }>;
    assert.ok(all.some((event) => event.event_type === "values"));
    const other = (await (await fetch(`${base}?task_id=someone-else`)).json()) as unknown[];
    assert.deepEqual(other, []);
    const bad = await fetch(`${base}?limit=0`);
    assert.equal(bad.status, 422);
    assert.match(((await bad.json()) as { detail: string }).detail, /limit/);
  } finally {
    await t.close();
  }
});

test("export: the conversation as Markdown or JSON, as a download", async () => {
  const t = await startTestServer({ script: () => ({ content: "Deer are ruminants." }) });
  try {
    const { threadId } = await oneTurn(t, "Tell me about deer");
    await t.client.threads.updateState(threadId, { values: { title: "Deer / notes" } });
    const md = await fetch(`${t.url}/api/threads/${threadId}/export?format=md`);
    assert.equal(md.status, 200);
    assert.match(md.headers.get("content-type")!, /^text\/markdown/);
    assert.match(md.headers.get("content-disposition")!, /attachment; filename="Deer notes\.md"/);
    const text = await md.text();
    assert.match(text, /^# Deer \/ notes\n/);
    assert.match(text, /## User\n\nTell me about deer\n\n---\n\n## Assistant\n\nDeer are ruminants\.\n$/);
    const json = (await (await fetch(`${t.url}/api/threads/${threadId}/export?format=json`)).json()) as {
      title: string;
      thread_id: string;
      messages: Array<{ type: string; content: string }>;
    };
    assert.equal(json.thread_id, threadId);
    assert.deepEqual(
      json.messages.map((message) => [message.type, message.content]),
      [
        ["human", "Tell me about deer"],
        ["ai", "Deer are ruminants."],
      ],
    );
    const bad = await fetch(`${t.url}/api/threads/${threadId}/export?format=pdf`);
    assert.equal(bad.status, 422);
    assert.match(((await bad.json()) as { detail: string }).detail, /md \(or markdown\) or json/);
  } finally {
    await t.close();
  }
});
