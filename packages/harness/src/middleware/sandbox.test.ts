import { test } from "node:test";
import assert from "node:assert/strict";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { createTestSandbox } from "../testing/sandbox.js";
import { ThreadStateSchema } from "../state/thread-state.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { sandboxMiddleware, withSandboxUpdate } from "./sandbox.js";

test("withSandboxUpdate adds the sandbox id to a ToolMessage or to a Command's update", () => {
  const message = new ToolMessage({ content: "OK", tool_call_id: "c1" });
  const wrapped = withSandboxUpdate(message, "sandbox:t1") as Command;
  assert.deepEqual((wrapped.update as Record<string, unknown>).sandbox, { sandbox_id: "sandbox:t1" });
  assert.deepEqual((wrapped.update as { messages: ToolMessage[] }).messages, [message]);
  const command = new Command({ update: { artifacts: ["/mnt/user-data/outputs/a"], messages: [message] } });
  const merged = withSandboxUpdate(command, "sandbox:t1") as Command;
  assert.deepEqual(merged.update, {
    artifacts: ["/mnt/user-data/outputs/a"],
    messages: [message],
    sandbox: { sandbox_id: "sandbox:t1" },
  });
});

test("in agent runs the sandbox is acquired lazily, recorded once, and kept across turns", async (t) => {
  const kit = createTestSandbox({ threadId: "lazy-thread" });
  t.after(() => kit.cleanup());
  kit.provider.release(kit.sandbox.id); // start with no sandbox held
  const model = new ScriptedChatModel([
    { content: "no tools needed" },
    {
      tool_calls: [
        { name: "write_file", args: { description: "w", path: "/mnt/user-data/outputs/a.txt", content: "a" } },
        { name: "ls", args: { description: "l", path: "/mnt/user-data/outputs" } },
      ],
    },
    { content: "written" },
    { tool_calls: [{ name: "read_file", args: { description: "r", path: "/mnt/user-data/outputs/a.txt" } }] },
    { content: "read" },
  ]);
  const agent = createAgent({
    model,
    tools: kit.tools,
    stateSchema: ThreadStateSchema,
    middleware: [sandboxMiddleware({ provider: kit.provider })],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "lazy-thread" } };
  const first = await agent.invoke({ messages: [new HumanMessage({ id: "sb-h1", content: "hello" })] }, config);
  assert.equal(first.sandbox, null, "no tool call, no sandbox");
  assert.equal(kit.provider.get("sandbox:lazy-thread"), undefined);
  const second = await agent.invoke({ messages: [new HumanMessage({ id: "sb-h2", content: "write" })] }, config);
  assert.deepEqual(
    second.sandbox,
    { sandbox_id: "sandbox:lazy-thread" },
    "two parallel tool calls recorded the same id without conflict",
  );
  const held = kit.provider.get("sandbox:lazy-thread");
  assert.ok(held);
  const third = await agent.invoke({ messages: [new HumanMessage({ id: "sb-h3", content: "read" })] }, config);
  assert.deepEqual(third.sandbox, { sandbox_id: "sandbox:lazy-thread" });
  assert.equal(kit.provider.get("sandbox:lazy-thread"), held, "the same sandbox across turns");
  model.assertDone();
});
