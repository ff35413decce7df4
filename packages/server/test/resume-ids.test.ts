/**
 * A resumed run keeps the ids of the messages that existed when it resumed: those of earlier runs and
 * those its own first attempt had already checkpointed (DeerFlow's worker keeps the current run's
 * pre-existing message ids on resume). Clients key messages by id, so a re-id'd message would show twice.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { collect, gate, lastUserText, startTestServer, until } from "./helpers.js";

const say = (text: string) => ({ messages: [{ role: "user", content: text }] });
type Values = { messages: { id: string; type: string; content: string }[] };

test("a run resumed after a restart keeps every message id it found, its own input's included", async () => {
  const block = gate();
  let t = await startTestServer({
    script: async (body: { messages: Array<{ role: string; content?: unknown }> }) => {
      const text = lastUserText(body);
      if (text === "slow") await block.wait;
      return { content: `echo: ${text}` };
    },
    drainGraceMs: 100,
  });
  try {
    const thread = await t.client.threads.create();
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("quick") });
    const slow = await t.client.runs.create(thread.thread_id, "lead_agent", { input: say("slow") });
    await until(async () => t.fake.requests.some((body) => lastUserText(body) === "slow"), 10_000, "the slow call");
    const before = ((await t.client.threads.getState(thread.thread_id)).values as Values).messages;
    assert.deepEqual(
      before.map((message) => message.content),
      ["quick", "echo: quick", "slow"],
    );
    t = await t.restart();
    block.open();
    const after = ((await t.client.runs.join(thread.thread_id, slow.run_id)) as Values).messages;
    assert.deepEqual(
      after.map((message) => message.id).slice(0, 3),
      before.map((message) => message.id),
      "the messages checkpointed before the restart keep their ids",
    );
    assert.equal(after.length, 4);
    assert.equal(new Set(after.map((message) => message.id)).size, 4, "no message appears twice");
    const events = await collect(t.client.runs.joinStream(thread.thread_id, slow.run_id, { lastEventId: "-1" }));
    const streamed = events
      .filter((part) => part.event === "values")
      .flatMap((part) => (part.data as Values).messages.map((message) => message.id));
    assert.ok(
      before.every((message) => streamed.includes(message.id)),
      "the resumed attempt streams the same ids",
    );
  } finally {
    block.open();
    await t.close();
  }
});

test("a command run resumed after a restart does not apply its update again (no second copy under a new id)", async () => {
  const block = gate();
  let t = await startTestServer({
    script: async (body: { messages: Array<{ role: string; content?: unknown }> }) => {
      const text = lastUserText(body);
      if (text === "slow") await block.wait;
      return { content: `echo: ${text}` };
    },
    drainGraceMs: 100,
  });
  try {
    const thread = await t.client.threads.create();
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("quick") });
    const run = await t.client.runs.create(thread.thread_id, "lead_agent", {
      command: { update: say("slow"), goto: "model_request" },
    });
    await until(async () => t.fake.requests.some((body) => lastUserText(body) === "slow"), 10_000, "the slow call");
    const before = ((await t.client.threads.getState(thread.thread_id)).values as Values).messages;
    t = await t.restart();
    block.open();
    const after = ((await t.client.runs.join(thread.thread_id, run.run_id)) as Values).messages;
    assert.deepEqual(
      after.map((message) => message.content),
      ["quick", "echo: quick", "slow", "echo: slow"],
    );
    assert.deepEqual(
      after.slice(0, 3).map((message) => message.id),
      before.map((message) => message.id),
    );
  } finally {
    block.open();
    await t.close();
  }
});

test("a run resumed from a breakpoint keeps the ids of the interrupted run's messages", async () => {
  const t = await startTestServer({
    script: (body) =>
      body.messages.some((message) => message.role === "tool")
        ? { content: "listed" }
        : { tool_calls: [{ name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } }] },
  });
  try {
    const thread = await t.client.threads.create();
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("look"), interruptBefore: ["tools"] });
    const before = ((await t.client.threads.getState(thread.thread_id)).values as Values).messages;
    const after = ((await t.client.runs.wait(thread.thread_id, "lead_agent", { input: null })) as Values).messages;
    assert.deepEqual(
      after.slice(0, before.length).map((message) => message.id),
      before.map((message) => message.id),
    );
    assert.deepEqual(
      after.map((message) => message.type),
      ["human", "ai", "tool", "ai"],
    );
  } finally {
    await t.close();
  }
});
