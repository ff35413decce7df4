import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, ToolMessage, createAgent, tool } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { clampMaxConcurrent } from "../subagents/concurrency.js";
import { limitTaskCalls, subagentLimitMiddleware } from "./subagent-limit.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";

const call = (name: string, id: string) => ({ name, id, args: {}, type: "tool_call" as const });

/** A `task` tool that records each prompt it runs in `ran` and answers `did <prompt>`. */
function recordingTaskTool(ran: string[]) {
  return tool(
    async ({ prompt }) => {
      ran.push(prompt);
      return `did ${prompt}`;
    },
    { name: "task", description: "Delegate.", schema: z.object({ prompt: z.string() }) },
  );
}

test("limitTaskCalls keeps the first N task calls and every other tool call, in order, under the same id", () => {
  const message = new AIMessage({
    id: "ai-1",
    content: "Delegating.",
    tool_calls: [
      call("task", "t1"),
      call("read_file", "r1"),
      call("task", "t2"),
      call("task", "t3"),
      call("bash", "b1"),
      call("task", "t4"),
    ],
  });
  const limited = limitTaskCalls(message, 2);
  assert.ok(limited);
  assert.equal(limited.message.id, "ai-1");
  assert.equal(limited.message.content, "Delegating.");
  assert.deepEqual(
    limited.message.tool_calls?.map((c) => c.id),
    ["t1", "r1", "t2", "b1"],
  );
  assert.deepEqual(
    limited.dropped.map((c) => c.id),
    ["t3", "t4"],
  );
});

test("limitTaskCalls changes nothing at or under the limit", () => {
  const message = new AIMessage({
    id: "ai-2",
    content: "",
    tool_calls: [call("task", "t1"), call("task", "t2"), call("bash", "b1")],
  });
  assert.equal(limitTaskCalls(message, 2), undefined);
  assert.equal(limitTaskCalls(new AIMessage({ id: "ai-3", content: "no tools" }), 2), undefined);
});

test("limitTaskCalls also drops the raw provider payloads of dropped calls", () => {
  const message = new AIMessage({
    id: "ai-4",
    content: [
      { type: "text", text: "Two jobs." },
      { type: "tool_use", id: "t1", name: "task", input: {} },
      { type: "tool_use", id: "t2", name: "task", input: {} },
    ],
    tool_calls: [call("task", "t1"), call("task", "t2")],
    additional_kwargs: {
      tool_calls: [
        { id: "t1", type: "function", function: { name: "task", arguments: "{}" } },
        { id: "t2", type: "function", function: { name: "task", arguments: "{}" } },
      ],
    },
  });
  const limited = limitTaskCalls(message, 1);
  assert.ok(limited);
  assert.deepEqual(
    (limited.message.content as { id?: string }[]).map((block) => block.id),
    [undefined, "t1"],
  );
  assert.deepEqual(
    limited.message.additional_kwargs.tool_calls?.map((c) => c.id),
    ["t1"],
  );
});

test("the limit is clamped to [1, 4] with a default of 3 (1 means one at a time)", () => {
  assert.deepEqual([undefined, 0, 1, 2, 3, 4, 10, Number.NaN].map(clampMaxConcurrent), [3, 1, 1, 2, 3, 4, 4, 3]);
});

test("in an agent run, a response with ten task calls runs only the allowed number and warns", async () => {
  const ran: string[] = [];
  const task = recordingTaskTool(ran);
  const other = tool(async () => "listed", { name: "ls", description: "List.", schema: z.object({}) });
  const calls = Array.from({ length: 10 }, (_, i) => ({
    name: "task",
    id: `t${i}`,
    args: { prompt: `job ${i}` },
    type: "tool_call" as const,
  }));
  const model = new ScriptedChatModel([
    new AIMessage({
      id: "lead-1",
      content: "",
      tool_calls: [...calls, { name: "ls", id: "ls-1", args: {}, type: "tool_call" }],
    }),
    new AIMessage({ id: "lead-2", content: "Done." }),
  ]);
  const warnings: string[] = [];
  const agent = createAgent({
    model,
    tools: [task, other],
    middleware: [subagentLimitMiddleware({ onWarning: (w) => warnings.push(w) })],
  });

  const out = await agent.invoke({ messages: [new HumanMessage({ id: "h-1", content: "Go." })] });

  assert.deepEqual(ran.sort(), ["job 0", "job 1", "job 2"]);
  assert.deepEqual(
    out.messages.filter((m) => m.getType() === "tool").map((m) => m.text),
    ["did job 0", "did job 1", "did job 2", "listed"],
  );
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] ?? "", /asked for 10 task calls in one response; kept the first 3, dropped 7/);
  assert.equal(out.messages.filter((m) => m.id === "lead-1").length, 1, "the response was replaced, not duplicated");
});

test("a run starts at most maxTotal subagents; later task calls get an error result and the run goes on; the next run starts afresh", async () => {
  const ran: string[] = [];
  const task = recordingTaskTool(ran);
  const taskCall = (id: string) => ({ name: "task", id, args: { prompt: id }, type: "tool_call" as const });
  const model = new ScriptedChatModel([
    new AIMessage({ id: "r1", content: "", tool_calls: [taskCall("a"), taskCall("b")] }),
    new AIMessage({ id: "r2", content: "", tool_calls: [taskCall("c")] }),
    new AIMessage({ id: "r3", content: "Done with what I have." }),
    new AIMessage({ id: "r4", content: "", tool_calls: [taskCall("d")] }),
    new AIMessage({ id: "r5", content: "Done again." }),
  ]);
  const warnings: string[] = [];
  const agent = createAgent({
    model,
    tools: [task],
    middleware: [subagentLimitMiddleware({ maxConcurrent: 4, maxTotal: 2, onWarning: (w) => warnings.push(w) })],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "cap" } };
  const out = await agent.invoke({ messages: [new HumanMessage({ id: "h-1", content: "Go." })] }, config);
  assert.deepEqual(ran.sort(), ["a", "b"]);
  assert.equal(out.messages.at(-1)!.text, "Done with what I have.");
  const refused = out.messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === "c") as ToolMessage;
  assert.equal(refused.status, "error");
  assert.match(refused.text, /subagent limit for this run is reached \(2 task calls/);
  assert.match(warnings.join("\n"), /reached its cap of 2 task calls; refused 1/);

  const again = await agent.invoke({ messages: [new HumanMessage({ id: "h-2", content: "Once more." })] }, config);
  assert.deepEqual(ran.sort(), ["a", "b", "d"], "a new run has its own cap");
  assert.equal(again.messages.at(-1)!.text, "Done again.");
});

test("maxConcurrent 1 runs one task per response", () => {
  const message = new AIMessage({ id: "m", content: "", tool_calls: [call("task", "t1"), call("task", "t2")] });
  assert.deepEqual(
    limitTaskCalls(message, clampMaxConcurrent(1))!.message.tool_calls!.map((c) => c.id),
    ["t1"],
  );
});
