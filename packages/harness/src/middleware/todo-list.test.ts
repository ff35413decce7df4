import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage, createAgent } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { ThreadStateSchema } from "../state/thread-state.js";
import { isSystemReminder } from "../messages/system-reminder.js";
import {
  TODO_LIST_SYSTEM_PROMPT,
  countSiblingTodoCalls,
  describeTodos,
  todoCompletionReminder,
  todoListMiddleware,
} from "./todo-list.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";

type Todo = { content: string; status: "pending" | "in_progress" | "completed" };
const write = (id: string, todos: Todo[]) => ({ id, name: "write_todos", args: { todos }, type: "tool_call" as const });

/** An agent with only the todo-list middleware, its state kept in memory. */
function planAgent(model: ScriptedChatModel) {
  return createAgent({
    model,
    tools: [],
    stateSchema: ThreadStateSchema,
    middleware: [todoListMiddleware()],
    checkpointer: new MemorySaver(),
  });
}

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
    new AIMessage({
      id: "a1",
      content: "",
      tool_calls: [write("w1", []), write("w2", []), { id: "b1", name: "bash", args: {}, type: "tool_call" }],
    }),
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
  const model = new ScriptedChatModel([
    new AIMessage({ id: "ai-1", content: "", tool_calls: [write("w1", plan)] }),
    new AIMessage({ id: "ai-2", content: "", tool_calls: [write("w2", done)] }),
    new AIMessage({ id: "ai-3", content: "The sum is 6." }),
  ]);
  const agent = planAgent(model);
  const config = { configurable: { thread_id: "plan-1" } };

  const seen: unknown[] = [];
  const stream = await agent.stream(
    { messages: [new HumanMessage({ id: "h-1", content: "Sum 1, 2, 3." })] },
    { ...config, streamMode: "values" },
  );
  for await (const values of stream) seen.push(values.todos);

  assert.deepEqual(
    seen.filter((todos) => todos != null).at(0),
    plan,
    "the plan appears in state while the run goes on",
  );
  const state = await agent.graph.getState(config);
  assert.deepEqual(state.values.todos, done);
  const system = model.calls[0]?.messages[0];
  assert.equal(system?.getType(), "system");
  assert.ok(system?.text.includes(TODO_LIST_SYSTEM_PROMPT));
});

test("parallel write_todos calls are both refused, the list is unchanged, and the model is asked again", async () => {
  const model = new ScriptedChatModel([
    new AIMessage({
      id: "ai-1",
      content: "",
      tool_calls: [
        write("w1", [{ content: "A", status: "pending" }]),
        write("w2", [{ content: "B", status: "pending" }]),
      ],
    }),
    new AIMessage({
      id: "ai-2",
      content: "",
      tool_calls: [write("w3", [{ content: "A and B", status: "in_progress" }])],
    }),
    new AIMessage({ id: "ai-3", content: "Done." }),
    new AIMessage({ id: "ai-4", content: "Still working on A and B." }),
    new AIMessage({ id: "ai-5", content: "Still working on them." }),
  ]);
  const agent = createAgent({ model, tools: [], stateSchema: ThreadStateSchema, middleware: [todoListMiddleware()] });

  const out = await agent.invoke({ messages: [new HumanMessage({ id: "h-1", content: "Plan A and B." })] });

  assert.equal(model.callCount, 5, "the open item earns two completion reminders");
  const refused = out.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.status === "error");
  assert.deepEqual(
    refused.map((m) => m.tool_call_id),
    ["w1", "w2"],
  );
  assert.match(refused[0]?.text ?? "", /more than once in one response/);
  assert.deepEqual(out.todos, [{ content: "A and B", status: "in_progress" }]);
});

test("after compaction hid the plan, each request carries the current todos in its system message", async () => {
  const todos: Todo[] = [
    { content: "Draft the report", status: "in_progress" },
    { content: "Send it", status: "pending" },
  ];
  const model = new ScriptedChatModel([
    { tool_calls: [{ name: "write_todos", args: { todos: todos.map((t) => ({ ...t, status: "completed" })) } }] },
    { content: "Sent." },
  ]);
  const agent = createAgent({ model, tools: [], stateSchema: ThreadStateSchema, middleware: [todoListMiddleware()] });
  // As after summarization: the todos are in state, the write_todos call that showed them is gone.
  await agent.invoke({ messages: [new HumanMessage({ id: "h-1", content: "Go on." })], todos });
  const first = model.calls[0]!.messages[0]!.text;
  assert.match(
    first,
    /<todo_reminder>\nYour todo list from earlier is no longer visible[\s\S]*- \[in_progress\] Draft the report\n- \[pending\] Send it/,
  );
  assert.ok(
    !model.calls[1]!.messages[0]!.text.includes("<todo_reminder>"),
    "not repeated once write_todos is visible again",
  );
  model.assertDone();
});

test("a final answer with open todos is reminded at most twice per run, and no reminder stays in messages", async () => {
  const plan: Todo[] = [
    { content: "Write", status: "completed" },
    { content: "Check", status: "pending" },
  ];
  const model = new ScriptedChatModel([
    { tool_calls: [{ name: "write_todos", args: { todos: plan } }] },
    { content: "Done, I think." },
    { content: "Still done." },
    { content: "Really done." },
    { content: "Next turn." },
    { content: "Next turn, again." },
    { content: "Next turn, finally." },
  ]);
  const agent = planAgent(model);
  const config = { configurable: { thread_id: "remind" } };
  const isReminder = (message: BaseMessage) => message.name === "todo_completion_reminder";
  const out = await agent.invoke({ messages: [new HumanMessage({ id: "h-1", content: "Write and check." })] }, config);
  assert.equal(model.calls.length, 4, "two reminders, not three");
  assert.deepEqual(
    model.calls.map((call) => call.messages.filter(isReminder).length),
    [0, 0, 1, 1],
    "each reminded request carries exactly one reminder",
  );
  const reminder = model.calls[2]!.messages.at(-1)!;
  assert.ok(isReminder(reminder) && reminder.getType() === "human");
  assert.equal(reminder.additional_kwargs.hide_from_ui, true);
  assert.match(reminder.text, /still has open items:\n- \[pending\] Check\n/);
  assert.ok(!reminder.text.includes("Write"), "completed items are not listed");
  assert.equal(out.messages.filter(isReminder).length, 0, "the reminder is never saved into messages");
  assert.deepEqual(out.messages.map((message: BaseMessage) => message.text).slice(-3), [
    "Done, I think.",
    "Still done.",
    "Really done.",
  ]);
  const next = await agent.invoke({ messages: [new HumanMessage({ id: "h-2", content: "And?" })] }, config);
  assert.equal(model.calls.length, 7, "a new run may remind twice again");
  assert.equal(next.messages.filter(isReminder).length, 0);
  model.assertDone();
});

test("a run a guard stopped (stop_reason set) is not reopened by the completion reminder", async () => {
  const plan: Todo[] = [{ content: "Write", status: "in_progress" }];
  const model = new ScriptedChatModel([
    { tool_calls: [{ name: "write_todos", args: { todos: plan } }] },
    new AIMessage({ id: "stopped-1", content: "[Stopped: loop]", additional_kwargs: { stop_reason: "loop_capped" } }),
  ]);
  const agent = createAgent({ model, tools: [], stateSchema: ThreadStateSchema, middleware: [todoListMiddleware()] });
  const out = await agent.invoke({ messages: [new HumanMessage({ id: "h-1", content: "Write." })] });
  assert.equal(out.messages.at(-1)!.text, "[Stopped: loop]");
  model.assertDone();
});

test("a completion reminder left behind by a run that died is removed when the next run starts", async () => {
  const model = new ScriptedChatModel([{ content: "Hello." }]);
  const agent = planAgent(model);
  const stale = new HumanMessage({ id: "stale-1", name: "todo_completion_reminder", content: "<system_reminder>" });
  const out = await agent.invoke(
    { messages: [stale, new HumanMessage({ id: "h-1", content: "Hi." })] },
    { configurable: { thread_id: "stale" } },
  );
  assert.deepEqual(
    out.messages.map((message: BaseMessage) => message.id),
    ["h-1", out.messages.at(-1)!.id],
  );
  assert.ok(!model.calls[0]!.messages.some((message) => message.id === "stale-1"));
  model.assertDone();
});

test("the completion reminder is flagged, so compaction before the model call it is for keeps it", () => {
  const reminder = todoCompletionReminder([{ content: "write the report", status: "in_progress" }]);
  assert.ok(isSystemReminder(reminder));
  assert.ok(!isSystemReminder(new HumanMessage("<system_reminder>typed by the user</system_reminder>")));
});
