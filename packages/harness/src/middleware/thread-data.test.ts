import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { threadPaths } from "../sandbox/virtual-paths.js";
import { ThreadStateSchema } from "../state/thread-state.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { tempHome } from "../testing/temp-home.js";
import { stampUserMessage, threadDataMiddleware } from "./thread-data.js";

test("stampUserMessage stamps the last human message once, keeping its id and content", () => {
  const now = new Date("2026-05-08T10:00:00Z");
  const messages = [
    new HumanMessage({ id: "h1", content: "first" }),
    new AIMessage("ok"),
    new HumanMessage({ id: "h2", content: "second" }),
  ];
  const stamped = stampUserMessage(messages, now, "run-7")!;
  assert.equal(stamped.id, "h2");
  assert.equal(stamped.content, "second");
  assert.equal(stamped.name, "user-input");
  assert.deepEqual(stamped.additional_kwargs, { timestamp: "2026-05-08T10:00:00.000Z", run_id: "run-7" });
  assert.equal(stampUserMessage([stamped], now), null, "already stamped");
  assert.equal(stampUserMessage([new AIMessage("x")], now), null);
  assert.equal(stampUserMessage([new HumanMessage({ content: "x", name: "alice" })], now)!.name, "alice");
});

test("in an agent run, thread_data holds the thread's host paths and the directories exist", async (t) => {
  const home = tempHome(t, { prefix: "thread-data-test-" });
  const model = new ScriptedChatModel([{ content: "done" }]);
  const agent = createAgent({
    model,
    tools: [],
    stateSchema: ThreadStateSchema,
    middleware: [threadDataMiddleware({ home })],
    checkpointer: new MemorySaver(),
  });
  const result = await agent.invoke(
    { messages: [new HumanMessage({ id: "td-h1", content: "hi" })] },
    { configurable: { thread_id: "td-1" } },
  );
  assert.deepEqual(result.thread_data, threadPaths(home, "td-1"));
  for (const dir of Object.values(threadPaths(home, "td-1"))) assert.ok(fs.statSync(dir).isDirectory());
  const sent = model.calls[0]!.messages.find((message) => HumanMessage.isInstance(message))!;
  assert.equal(typeof sent.additional_kwargs.timestamp, "string", "the model sees the stamped message");
  await assert.rejects(
    agent.invoke({ messages: [new HumanMessage({ id: "td-h2", content: "hi" })] }, { configurable: {} } as never),
    /needs a thread: pass configurable\.thread_id/,
  );
});
