import { test } from "node:test";
import assert from "node:assert/strict";
import { MemorySaver } from "@langchain/langgraph";
import { AIMessage, HumanMessage, createAgent, tool } from "langchain";
import { z } from "zod";
import type { MemoryTurn } from "../memory/conversation-filter.js";
import { memoryMiddleware } from "./memory.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";

const lookup = tool(async ({ topic }) => `notes about ${topic}`, {
  name: "lookup",
  description: "Look up notes",
  schema: z.object({ topic: z.string() }),
});

function recordingQueue() {
  const jobs: { threadId: string; turns: MemoryTurn[]; agentName?: string }[] = [];
  return {
    jobs,
    queue: {
      enqueue: (threadId: string, turns: MemoryTurn[], options?: { agentName?: string }) =>
        void jobs.push({ threadId, turns, agentName: options?.agentName }),
    },
  };
}

test("after a run with tool calls, the thread's user messages and final answer are queued under its thread id", async () => {
  const { jobs, queue } = recordingQueue();
  const model = new ScriptedChatModel([
    { tool_calls: [{ name: "lookup", args: { topic: "payments" }, id: "call-1" }] },
    new AIMessage({ content: "You work on payment APIs at Acme.", id: "ai-final-1" }),
  ]);
  const agent = createAgent({
    model,
    tools: [lookup],
    middleware: [memoryMiddleware({ queue, agentName: "researcher" })],
    checkpointer: new MemorySaver(),
  });

  await agent.invoke(
    {
      messages: [
        new HumanMessage({
          content: "<uploaded_files>\n- notes.md\n</uploaded_files>\nI work at Acme on payment APIs",
          id: "h-1",
        }),
        new HumanMessage({
          content: "summary of earlier turns",
          id: "h-hidden",
          additional_kwargs: { hide_from_ui: true },
        }),
      ],
    },
    { configurable: { thread_id: "thread-42" } },
  );

  assert.equal(jobs.length, 1);
  assert.equal(jobs[0]?.threadId, "thread-42");
  assert.equal(jobs[0]?.agentName, "researcher");
  assert.deepEqual(jobs[0]?.turns, [
    { role: "user", content: "I work at Acme on payment APIs" },
    { role: "assistant", content: "You work on payment APIs at Acme." },
  ]);
});

test("a second run on the thread queues the whole conversation so far", async () => {
  const { jobs, queue } = recordingQueue();
  const model = new ScriptedChatModel([
    new AIMessage({ content: "Hi!", id: "ai-a" }),
    new AIMessage({ content: "TypeScript it is.", id: "ai-b" }),
  ]);
  const agent = createAgent({
    model,
    tools: [],
    middleware: [memoryMiddleware({ queue })],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "t" } };
  await agent.invoke({ messages: [new HumanMessage({ content: "hello", id: "h-a" })] }, config);
  await agent.invoke({ messages: [new HumanMessage({ content: "I prefer TypeScript", id: "h-b" })] }, config);
  assert.equal(jobs.length, 2);
  assert.deepEqual(
    jobs[1]?.turns.map((turn) => turn.content),
    ["hello", "Hi!", "I prefer TypeScript", "TypeScript it is."],
  );
});

test("a run without a thread id queues nothing", async () => {
  const { jobs, queue } = recordingQueue();
  const model = new ScriptedChatModel([new AIMessage({ content: "Hi!", id: "ai-x" })]);
  const agent = createAgent({ model, tools: [], middleware: [memoryMiddleware({ queue })] });
  await agent.invoke({ messages: [new HumanMessage({ content: "hello", id: "h-x" })] });
  assert.deepEqual(jobs, []);
});

test("a run in which the user corrects the agent is queued with the correction signal", async () => {
  const jobs: { signals?: readonly string[] }[] = [];
  const queue = {
    enqueue: (_: string, __: MemoryTurn[], options?: { signals?: readonly string[] }) =>
      void jobs.push({ signals: options?.signals }),
  };
  const model = new ScriptedChatModel([
    new AIMessage({ content: "Run pip install requests.", id: "ai-s1" }),
    new AIMessage({ content: "Sorry: uv add requests.", id: "ai-s2" }),
  ]);
  const agent = createAgent({
    model,
    tools: [],
    middleware: [memoryMiddleware({ queue })],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "t-signal" } };
  await agent.invoke({ messages: [new HumanMessage({ content: "How do I add requests?", id: "h-s1" })] }, config);
  await agent.invoke({ messages: [new HumanMessage({ content: "That's wrong, I use uv.", id: "h-s2" })] }, config);
  assert.deepEqual(
    jobs.map((job) => job.signals),
    [[], ["correction"]],
  );
});
