import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, ToolMessage, createAgent, fakeModel } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { ThreadStateSchema } from "../state/thread-state.js";
import { TODO_LIST_SYSTEM_PROMPT, countSiblingTodoCalls, describeTodos, todoListMiddleware } from "./todo-list.js";

type Todo = { content: string; status: "pending" | "in_progress" | "completed" };
const write = (id: string, todos: Todo[]) => ({ id, name: "write_todos", args: { todos }, type: "tool_call" as const });

test("describeTodos lists every item with its status", () => {
  assert.equal(
    describeTodos([
      { content: "Read the data", status: "completed" },
      { content: "Write the report", status: "in_progress" },
    ]),
    "Updated the todo list (1/2 completed):\n- [completed] Read the data\n- [in_progress] Write the report",
  );
  assert.equal(describeTodos([]), "Cleared the todo list.");
});

test("countSiblingTodoCalls counts write_todos calls in the response that made a call", () => {
  const messages = [
    new AIMessage({ id: "a1", content: "", tool_calls: [write("w1", []), write("w2", []), { id: "b1", name: "bash", args: {}, type: "tool_call" }] }),
    new AIMessage({ id: "a2", content: "", tool_calls: [write("w3", [])] }),
  ];
  assert.equal(countSiblingTodoCalls(messages, "w2"), 2);
  assert.equal(countSiblingTodoCalls(messages, "w3"), 1);
});

test("a plan-mode run updates todos as the model works through them, with the rules in the system message", async () => {
  const plan: Todo[] = [
    { content: "Collect numbers", status: "in_progress" },
    { content: "Sum them", status: "pending" },
  ];
  const done: Todo[] = [
    { content: "Collect numbers", status: "completed" },
    { content: "Sum them", status: "completed" },
  ];
  const model = fakeModel()
    .respond(new AIMessage({ id: "ai-1", content: "", tool_calls: [write("w1", plan)] }))
    .respond(new AIMessage({ id: "ai-2", content: "", tool_calls: [write("w2", done)] }))
    .respond(new AIMessage({ id: "ai-3", content: "The sum is 6." }));
  const agent = createAgent({ model, tools: [], stateSchema: ThreadStateSchema, middleware: [todoListMiddleware()], checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "plan-1" } };

  const seen: unknown[] = [];
  const stream = await agent.stream({ messages: [new HumanMessage({ id: "h-1", content: "Sum 1, 2, 3." })] }, { ...config, streamMode: "values" });
  for await (const values of stream) seen.push(values.todos);

  assert.deepEqual(seen.filter((todos) => todos != null).at(0), plan, "the plan appears in state while the run goes on");
  const state = await agent.graph.getState(config);
  assert.deepEqual(state.values.todos, done);
  const system = model.calls[0].messages[0];
  assert.equal(system.getType(), "system");
  assert.ok(system.text.includes(TODO_LIST_SYSTEM_PROMPT));
});

test("parallel write_todos calls are both refused, the list is unchanged, and the model is asked again", async () => {
  const model = fakeModel()
    .respond(
      new AIMessage({
        id: "ai-1",
        content: "",
        tool_calls: [write("w1", [{ content: "A", status: "pending" }]), write("w2", [{ content: "B", status: "pending" }])],
      }),
    )
    .respond(new AIMessage({ id: "ai-2", content: "", tool_calls: [write("w3", [{ content: "A and B", status: "in_progress" }])] }))
    .respond(new AIMessage({ id: "ai-3", content: "Done." }));
  const agent = createAgent({ model, tools: [], stateSchema: ThreadStateSchema, middleware: [todoListMiddleware()] });

  const out = await agent.invoke({ messages: [new HumanMessage({ id: "h-1", content: "Plan A and B." })] });

  assert.equal(model.callCount, 3);
  const refused = out.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.status === "error");
  assert.deepEqual(refused.map((m) => m.tool_call_id), ["w1", "w2"]);
  assert.match(refused[0].text, /more than once in one response/);
  assert.deepEqual(out.todos, [{ content: "A and B", status: "in_progress" }]);
});
