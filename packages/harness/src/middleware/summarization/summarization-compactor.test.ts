import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { ScriptedChatModel } from "../../testing/scripted-model.js";
import { SYSTEM_REMINDER_FLAG } from "../../messages/system-reminder.js";
import { type CompactorOptions, createCompactor } from "./summarization-compactor.js";
import type { SummarizationEvent } from "./summarization-hooks.js";

/** `turns` user/answer pairs with ids h0, a0, h1, a1, ... */
function thread(turns: number): BaseMessage[] {
  return Array.from({ length: turns }, (_, i) => [
    new HumanMessage({ id: `h${i}`, content: `question ${i}` }),
    new AIMessage({ id: `a${i}`, content: `answer ${i}` }),
  ]).flat();
}

function compactor(options: Partial<CompactorOptions> = {}) {
  const summarizer = new ScriptedChatModel([{ content: "SUMMARY" }], { loop: true, name: "summarizer" });
  const warnings: string[] = [];
  const compact = createCompactor({
    models: [summarizer],
    trigger: { type: "messages", value: 100 },
    keep: { type: "messages", value: 2 },
    trimTokensToSummarize: null,
    onWarning: (warning) => warnings.push(warning),
    ...options,
  });
  return { compact, summarizer, warnings };
}

const removedIds = (update: { messages: BaseMessage[] }) =>
  update.messages.map((message) => (message as RemoveMessage).id);

test("before_summarization hooks see the messages to be removed and the ones kept", async () => {
  const events: SummarizationEvent[] = [];
  const { compact } = compactor({ beforeSummarization: [(event) => void events.push(event)], agentName: "researcher" });
  const outcome = await compact({ messages: thread(3) }, { threadId: "t1", force: true });
  assert.ok(outcome.compacted);
  assert.equal(events.length, 1);
  const [event] = events;
  assert.deepEqual(
    event!.messages.map((m) => m.id),
    ["h0", "a0", "h1", "a1"],
  );
  assert.deepEqual(
    event!.preserved.map((m) => m.id),
    ["h2", "a2"],
  );
  assert.deepEqual(removedIds(outcome.update), ["h0", "a0", "h1", "a1"]);
  assert.equal(event!.threadId, "t1");
  assert.equal(event!.agentName, "researcher");
  assert.equal(event!.manual, true);
});

test("a hook that throws or rejects is reported and the compaction goes on, later hooks included", async () => {
  const seen: string[] = [];
  const { compact, warnings } = compactor({
    beforeSummarization: [
      function broken() {
        throw new Error("disk on fire");
      },
      async function rejects() {
        throw new Error("late failure");
      },
      () => void seen.push("third"),
    ],
  });
  const outcome = await compact({ messages: thread(3) }, { threadId: "t1", force: true });
  assert.ok(outcome.compacted, "compacted anyway");
  assert.deepEqual(seen, ["third"]);
  assert.equal(warnings.length, 2);
  assert.match(warnings[0]!, /hook broken failed .*disk on fire/);
  assert.match(warnings[1]!, /hook rejects failed .*late failure/);
});

test("hooks are not run when no summary could be made (the messages stay for the next attempt)", async () => {
  const failing = new ScriptedChatModel([new Error("HTTP 503")], { loop: true });
  let calls = 0;
  const { compact } = compactor({ models: [failing], beforeSummarization: [() => void (calls += 1)] });
  const outcome = await compact({ messages: thread(3) }, { threadId: "t1", force: true });
  assert.equal(outcome.compacted, false);
  assert.equal(outcome.compacted === false && outcome.reason, "summary_failed");
  assert.equal(calls, 0);
});

test("reminders older than the cut stay in the thread and are not summarized", async () => {
  const reminder = new HumanMessage({
    id: "r1",
    content: "<system_reminder>Keep pursuing the goal.</system_reminder>",
    additional_kwargs: { hide_from_ui: true, [SYSTEM_REMINDER_FLAG]: true },
  });
  const deerflowReminder = new HumanMessage({
    id: "r2",
    content: "<memory>likes tea</memory>",
    additional_kwargs: { hide_from_ui: true, dynamic_context_reminder: true },
  });
  const [h0, a0, ...rest] = thread(3);
  const { compact, summarizer } = compactor();
  const outcome = await compact({ messages: [h0!, reminder, a0!, deerflowReminder, ...rest] }, { force: true });
  assert.ok(outcome.compacted);
  assert.deepEqual(
    outcome.preserved.map((m) => m.id),
    ["r1", "r2", "h2", "a2"],
  );
  assert.deepEqual(removedIds(outcome.update), ["h0", "a0", "h1", "a1"]);
  const prompt = summarizer.calls[0]!.messages[0]!.text;
  assert.ok(!prompt.includes("Keep pursuing"), "the reminder is not retold in the summary input");
});

test("force compacts below every trigger; keep overrides the configured keep for that compaction only", async () => {
  const { compact } = compactor();
  const unforced = await compact({ messages: thread(3) });
  assert.deepEqual(unforced.compacted === false && unforced.reason, "not_needed");
  const outcome = await compact({ messages: thread(3) }, { force: true, keep: { type: "messages", value: 4 } });
  assert.ok(outcome.compacted);
  assert.deepEqual(
    outcome.preserved.map((m) => m.id),
    ["h1", "a1", "h2", "a2"],
  );
  assert.ok(outcome.totalTokens > 0);
});

test("a thread that is all kept tail is not compacted, forced or not", async () => {
  const { compact } = compactor();
  const outcome = await compact({ messages: thread(1) }, { force: true });
  assert.deepEqual(outcome.compacted === false && outcome.reason, "not_enough_messages");
});
