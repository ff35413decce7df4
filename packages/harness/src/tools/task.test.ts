import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage, type ToolRuntime, createAgent, tool } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { ThreadStateSchema } from "../state/thread-state.js";
import { createSubagentRegistry } from "../subagents/registry.js";
import { sha256Hex } from "../subagents/status-contract.js";
import type { SubagentSpec } from "../subagents/types.js";
import { askClarificationTool } from "./ask-clarification.js";
import { cancelledTaskResults, createTaskTool, selectSubagentTools, taskToolMessage } from "./task.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";

const named = (name: string) => tool(async () => name, { name, description: name, schema: z.object({}) });
const echo = tool(
  async ({ text }, runtime: ToolRuntime) => {
    const sandbox = (runtime.state as { sandbox?: { sandbox_id?: string } | null }).sandbox;
    return `echo: ${text} (sandbox ${sandbox?.sandbox_id ?? "none"})`;
  },
  { name: "echo", description: "Echo text.", schema: z.object({ text: z.string() }) },
);

test("selectSubagentTools removes task, ask_clarification and present_files and applies an allow-list", () => {
  const parent = ["bash", "read_file", "task", "ask_clarification", "present_files", "write_file"].map(named);
  const all = selectSubagentTools(parent, {
    tools: null,
    disallowedTools: ["task", "ask_clarification", "present_files"],
  });
  assert.deepEqual(
    all.map((t) => t.name),
    ["bash", "read_file", "write_file"],
  );
  const some = selectSubagentTools(parent, {
    tools: ["read_file", "task"],
    disallowedTools: ["task", "ask_clarification", "present_files"],
  });
  assert.deepEqual(
    some.map((t) => t.name),
    ["read_file"],
  );
});

test("taskToolMessage carries the text for the model and the structured status", () => {
  const done = taskToolMessage({ status: "completed", result: "42 lines" }, "call_9", "qwen3");
  assert.equal(done.name, "task");
  assert.equal(done.tool_call_id, "call_9");
  assert.equal(done.content, "Task Succeeded. Result: 42 lines");
  assert.equal(done.status, "success");
  assert.deepEqual(done.additional_kwargs, {
    subagent_status: "completed",
    subagent_result_brief: "42 lines",
    subagent_result_sha256: sha256Hex("42 lines"),
    subagent_model_name: "qwen3",
  });
  const timedOut = taskToolMessage({ status: "timed_out", error: "too slow" }, "call_10");
  assert.equal(timedOut.content, "Task timed out. Error: too slow");
  assert.equal(timedOut.status, "error");
  assert.deepEqual(timedOut.additional_kwargs, { subagent_status: "timed_out", subagent_error: "too slow" });
});

test("cancelledTaskResults answers only the unanswered task calls of the last AI message", () => {
  const messages = [
    new HumanMessage("go"),
    new AIMessage({
      id: "a1",
      content: "",
      tool_calls: [
        { id: "t1", name: "task", args: {}, type: "tool_call" },
        { id: "t2", name: "task", args: {}, type: "tool_call" },
        { id: "l1", name: "ls", args: {}, type: "tool_call" },
      ],
    }),
    new ToolMessage({ tool_call_id: "t1", name: "task", content: "Task Succeeded. Result: x" }),
  ];
  const results = cancelledTaskResults(messages);
  assert.deepEqual(
    results.map((m) => [m.tool_call_id, m.name, m.text, m.additional_kwargs.subagent_status]),
    [["t2", "task", "Task cancelled by user.", "cancelled"]],
  );
  assert.deepEqual(cancelledTaskResults([new HumanMessage("hi")]), []);
});

test("an unknown subagent_type is a failed result naming the available types", async () => {
  const task = createTaskTool({
    registry: createSubagentRegistry({ bashAllowed: false }),
    createSubagent: () => {
      throw new Error("must not be built");
    },
    parentTools: [],
  });
  const message = (await task.invoke({
    type: "tool_call",
    id: "call_x",
    name: "task",
    args: { description: "d", prompt: "p", subagent_type: "bash" },
  })) as ToolMessage;
  assert.equal(message.additional_kwargs.subagent_status, "failed");
  assert.match(message.text, /^Task failed\. Error: The bash subagent is unavailable .* Available: general-purpose\.$/);
  const other = (await task.invoke({
    type: "tool_call",
    id: "call_y",
    name: "task",
    args: { description: "d", prompt: "p", subagent_type: "poet" },
  })) as ToolMessage;
  assert.equal(other.text, 'Task failed. Error: Unknown subagent type "poet". Available: general-purpose.');
});

test("in a real lead run the subagent works in isolation and only its result reaches the lead", async () => {
  const subModel = new ScriptedChatModel([
    new AIMessage({
      id: "sub-1",
      content: "",
      tool_calls: [{ id: "sub-call-1", name: "echo", args: { text: "ping" }, type: "tool_call" }],
    }),
    new AIMessage({ id: "sub-2", content: "Echo returned ping." }),
  ]);
  const lead = new ScriptedChatModel([
    new AIMessage({
      id: "lead-1",
      content: "",
      tool_calls: [
        {
          id: "call_task_1",
          name: "task",
          args: { description: "Ping echo", prompt: "Echo ping.", subagent_type: "general-purpose" },
          type: "tool_call",
        },
      ],
    }),
    new AIMessage({ id: "lead-2", content: "The subagent says: ping." }),
  ]);
  const specs: SubagentSpec[] = [];
  const presentFiles = named("present_files");
  const task = createTaskTool({
    registry: createSubagentRegistry(),
    createSubagent: (spec) => {
      specs.push(spec);
      return createAgent({ model: subModel, tools: spec.tools, stateSchema: ThreadStateSchema, checkpointer: false });
    },
    parentTools: () => [echo, askClarificationTool, presentFiles, task],
  });
  const saver = new MemorySaver();
  const agent = createAgent({
    model: lead,
    tools: [echo, askClarificationTool, presentFiles, task],
    stateSchema: ThreadStateSchema,
    checkpointer: saver,
  });
  const config = { configurable: { thread_id: "lead-thread" } };

  const custom: unknown[] = [];
  const stream = await agent.stream(
    { messages: [new HumanMessage({ id: "h-1", content: "Ping via a subagent." })], sandbox: { sandbox_id: "sb-7" } },
    { ...config, streamMode: ["custom", "updates"] },
  );
  for await (const [mode, chunk] of stream) if (mode === "custom") custom.push(chunk);

  assert.deepEqual(
    specs.map((spec) => spec.tools.map((t) => t.name)),
    [["echo"]],
  );
  const state = await agent.graph.getState(config);
  const messages: BaseMessage[] = state.values.messages;
  assert.deepEqual(messages.map((m) => m.id ?? m.getType()).slice(0, 2), ["h-1", "lead-1"]);
  assert.ok(!messages.some((m) => ["sub-1", "sub-2"].includes(m.id ?? "")), "subagent messages stay out of the lead");
  assert.ok(
    !messages.some((m) => ToolMessage.isInstance(m) && m.name === "echo"),
    "subagent tool results stay out of the lead",
  );
  const result = messages.find((m) => ToolMessage.isInstance(m) && m.name === "task") as ToolMessage;
  assert.equal(result.text, "Task Succeeded. Result: Echo returned ping.");
  assert.equal(result.additional_kwargs.subagent_status, "completed");
  assert.equal(result.additional_kwargs.subagent_result_sha256, sha256Hex("Echo returned ping."));
  assert.equal(messages.at(-1)?.text, "The subagent says: ping.");
  const subToolResult = subModel.calls[1]?.messages.find((m) => ToolMessage.isInstance(m));
  assert.equal(subToolResult?.text, "echo: ping (sandbox sb-7)", "the subagent works in the parent's sandbox");

  assert.deepEqual(
    custom.map((event) => (event as { type: string }).type),
    ["task_started", "task_running", "task_running", "task_running", "task_completed"],
  );
  assert.ok(custom.every((event) => (event as { task_id: string }).task_id === "call_task_1"));

  const checkpointThreads = Object.keys((saver as unknown as { storage: Record<string, unknown> }).storage);
  assert.deepEqual(checkpointThreads, ["lead-thread"], "the subagent writes no checkpoints into the lead's saver");
});
