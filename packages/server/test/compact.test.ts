/**
 * `POST /api/threads/{id}/compact`, as DeerFlow's frontend calls it (`compactThreadContext` in
 * `frontend/src/core/threads/api.ts`: `fetch` with `{force: true}`), against a real server: the answer's
 * shape, the thread after it, and each refusal with what to do.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message } from "@langchain/langgraph-sdk";
import { gate, lastUserText, startTestServer, type TestServer, until } from "./helpers.js";

const say = (text: string) => ({ messages: [{ role: "user", content: text }] });
const compact = (t: TestServer, threadId: string, body: unknown) =>
  fetch(`${t.url}/api/threads/${threadId}/compact`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

const script = (body: { messages: Array<{ role: string; content?: unknown }> }) =>
  JSON.stringify(body.messages).includes("<new_messages>")
    ? { content: "The user asked three questions." }
    : { content: `answer to ${lastUserText(body)}` };

test("compact summarizes the thread's older messages now and answers DeerFlow's ThreadCompactResponse", async () => {
  const t = await startTestServer({ script });
  try {
    const thread = await t.client.threads.create();
    for (const question of ["one", "two", "three"])
      await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say(question) });

    const response = await compact(t, thread.thread_id, { force: true, keep: { type: "messages", value: 2 } });
    assert.equal(response.status, 200);
    const body = (await response.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), [
      "checkpoint_id",
      "compacted",
      "preserved_message_count",
      "reason",
      "removed_message_count",
      "summary_updated",
      "thread_id",
      "total_tokens",
    ]);
    assert.equal(body.thread_id, thread.thread_id);
    assert.equal(body.compacted, true);
    assert.equal(body.reason, null);
    assert.equal(body.removed_message_count, 4);
    assert.equal(body.preserved_message_count, 2);
    assert.equal(body.summary_updated, true);
    assert.equal(typeof body.checkpoint_id, "string");

    const state = await t.client.threads.getState<{ messages: Message[]; summary_text?: string }>(thread.thread_id);
    assert.equal(state.values.summary_text, "The user asked three questions.");
    assert.deepEqual(
      state.values.messages.map((message) => message.content),
      ["three", "answer to three"],
    );
    assert.equal(state.checkpoint.checkpoint_id, body.checkpoint_id);

    // Nothing older than the kept tail is left: a second compaction says so instead of failing.
    const again = (await (await compact(t, thread.thread_id, {})).json()) as Record<string, unknown>;
    assert.deepEqual([again.compacted, again.reason], [false, "not_enough_messages"]);
    // And the thread goes on: the next run sees the summary in its request.
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("four") });
    assert.match(JSON.stringify(t.fake.requests.at(-1)!.messages), /The user asked three questions/);
  } finally {
    await t.close();
  }
});

test("compact refuses a bad body, an unknown thread and a thread with a run in progress, saying what to do", async () => {
  const block = gate();
  const t = await startTestServer({
    script: async (body) => {
      if (lastUserText(body) === "slow") await block.wait;
      return script(body);
    },
  });
  try {
    const thread = await t.client.threads.create();
    const bad = await compact(t, thread.thread_id, { keep: { type: "pages", value: 2 } });
    assert.equal(bad.status, 422);
    assert.match(await bad.text(), /keep/);

    const model = await compact(t, thread.thread_id, { model_name: "no-such-model" });
    assert.equal(model.status, 422, "an unknown model is refused as for a run");
    assert.match(await model.text(), /no-such-model/);

    const unknown = await compact(t, "0190f000-0000-7000-8000-000000000000", {});
    assert.equal(unknown.status, 404);

    const empty = await compact(t, thread.thread_id, {});
    assert.equal(empty.status, 404, "a thread that never ran has nothing to compact");
    assert.match(await empty.text(), /no saved conversation/);

    const run = await t.client.runs.create(thread.thread_id, "lead_agent", { input: say("slow") });
    await until(() => t.fake.requests.some((body) => lastUserText(body) === "slow"), 10_000, "the slow model call");
    const busy = await compact(t, thread.thread_id, {});
    assert.equal(busy.status, 409);
    assert.match(await busy.text(), /run in progress\. Compact it after the run finishes/);
    block.open();
    await t.client.runs.join(thread.thread_id, run.run_id);
  } finally {
    block.open();
    await t.close();
  }
});

test("compact with summarization off is a 409 that names the setting", async () => {
  const t = await startTestServer({ script, yaml: "summarization: {enabled: false}" });
  try {
    const thread = await t.client.threads.create();
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("one") });
    const response = await compact(t, thread.thread_id, { force: true });
    assert.equal(response.status, 409);
    assert.match(await response.text(), /summarization\.enabled: true/);
  } finally {
    await t.close();
  }
});
