/**
 * Compaction through the harness: manual `harness.compact` (what `/compact` and the compact route call),
 * the `beforeSummarization` option, and the memory flush that hands compacted messages to memory before
 * the end-of-run conversation (which no longer holds them) replaces them in the queue.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { BaseMessage } from "@langchain/core/messages";
import { createHarness, type HarnessOptions } from "../../src/agent/harness.js";
import { parseConfigText } from "../../src/config/load-config.js";
import type { SummarizationEvent } from "../../src/middleware/summarization/index.js";
import { type ChatCompletionRequest, createTempHome, startFakeOpenAIServer } from "../../src/testing/index.js";

const text = (body: ChatCompletionRequest) => JSON.stringify(body.messages.map((message) => message.content));
const isSummary = (body: ChatCompletionRequest) => text(body).includes("<new_messages>");
const isMemory = (body: ChatCompletionRequest) => text(body).includes("long-term memory that an AI assistant");

async function setup(t: test.TestContext, settings: string[], options: HarnessOptions = {}) {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({
    script: (body) => {
      if (isSummary(body)) return { content: "They asked three questions." };
      if (isMemory(body)) return { content: '{"newFacts": []}' };
      const asked = body.messages.filter((message) => message.role === "user").at(-1);
      return { content: `answer to ${String(asked?.content).slice(0, 40)}` };
    },
  });
  const config = parseConfigText(
    [
      "models:",
      `  - {name: main, use: openai, model: main-model, api_key: x, base_url: '${server.url}', max_retries: 0}`,
      "sandbox: {use: local}",
      "title: {enabled: false}",
      ...settings,
    ].join("\n"),
    { source: null, env: {} },
  );
  const harness = await createHarness(config, { home: home.path, env: {}, onWarning: () => {}, ...options });
  t.after(async () => {
    await harness.close();
    await server.close();
    home.cleanup();
  });
  const ask = async (threadId: string, question: string) =>
    harness
      .agent()
      .invoke({ messages: [{ role: "user", content: question }] }, { configurable: { thread_id: threadId } });
  const state = async (threadId: string) =>
    (await harness.agent().graph.getState({ configurable: { thread_id: threadId } })).values as {
      messages: BaseMessage[];
      summary_text?: string | null;
    };
  return { harness, server, ask, state };
}

test("harness.compact summarizes a thread now, below every trigger, and archives what it removed", async (t) => {
  const events: SummarizationEvent[] = [];
  const { harness, ask, state } = await setup(t, ["memory: {enabled: false}"], {
    beforeSummarization: [(event) => void events.push(event)],
  });
  for (const question of ["question 0", "question 1", "question 2"]) await ask("c1", question);

  const result = await harness.compact("c1", { keep: { type: "messages", value: 2 } });
  assert.equal(result.compacted, true);
  assert.equal(result.thread_id, "c1");
  assert.equal(result.removed_message_count, 4);
  assert.equal(result.preserved_message_count, 2);
  assert.equal(result.summary_updated, true);
  assert.ok(result.checkpoint_id, "a new checkpoint");
  assert.ok(result.total_tokens > 0);

  const after = await state("c1");
  assert.equal(after.summary_text, "They asked three questions.");
  assert.deepEqual(
    after.messages.map((message) => message.text),
    ["question 2", "answer to question 2"],
  );
  const history = await harness.history("c1");
  assert.ok(
    history.some((entry) => entry.kind === "compaction"),
    "the archive has the compaction",
  );
  assert.deepEqual(
    events.map((event) => [event.threadId, event.manual, event.messages.length]),
    [["c1", true, 4]],
  );

  const again = await harness.compact("c1", { keep: { type: "messages", value: 2 } });
  assert.deepEqual([again.compacted, again.reason], [false, "not_enough_messages"]);
  const unforced = await harness.compact("c1", { force: false, keep: { type: "messages", value: 1 } });
  assert.deepEqual([unforced.compacted, unforced.reason], [false, "not_needed"]);
});

test("harness.compact says what is wrong: summarization off, an unknown thread", async (t) => {
  const off = await setup(t, ["memory: {enabled: false}", "summarization: {enabled: false}"]);
  await assert.rejects(off.harness.compact("any"), {
    code: "compaction_unavailable",
    message: /summarization\.enabled/,
  });
  const on = await setup(t, ["memory: {enabled: false}"]);
  await assert.rejects(on.harness.compact("never-ran"), { code: "thread_invalid", message: /no saved conversation/ });
});

test("automatic compaction hands the compacted turns to memory before the end-of-run conversation replaces them", async (t) => {
  const { harness, server, ask } = await setup(t, [
    "memory: {enabled: true, debounce_seconds: 30}",
    "summarization: {trigger: {type: messages, value: 5}, keep: {type: messages, value: 2}}",
  ]);
  for (const question of ["question 0", "question 1", "question 2"]) await ask("m1", question);
  await harness.memory()?.flush();
  assert.ok(server.requests.some(isSummary), "the thread was compacted");
  const learned = server.requests.filter(isMemory).map(text);
  assert.ok(
    learned.some((conversation) => conversation.includes("question 0")),
    `memory saw the compacted first question; it got:\n${learned.join("\n")}`,
  );
});

test("a compaction sends memory nothing it has already learned from", async (t) => {
  const { harness, server, ask } = await setup(t, [
    "memory: {enabled: true, debounce_seconds: 0}",
    "summarization: {trigger: {type: messages, value: 5}, keep: {type: messages, value: 2}}",
  ]);
  const questions = ["question 0", "question 1", "question 2", "question 3", "question 4"];
  for (const question of questions) {
    await ask("m2", question);
    await harness.memory()?.flush();
  }
  assert.ok(server.requests.filter(isSummary).length >= 2, "the thread was compacted");
  assert.equal(
    server.requests.filter(isMemory).length,
    questions.length,
    "one memory update per turn, none for the compactions",
  );
});
