import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware } from "langchain";
import { z } from "zod";
import { ScriptedChatModel } from "../../testing/scripted-model.js";
import { INTERRUPTED_TOOL_RESULT, danglingToolCallMiddleware, patchDanglingToolCalls } from "./dangling-tool-call.js";
import { renameRecurringToolCallIds, usedToolCallIds } from "./recurring-tool-call-ids.js";

const call = (id: string, name = "bash") => ({ id, name, args: { command: "ls" }, type: "tool_call" as const });
const ai = (id: string, ...calls: ReturnType<typeof call>[]) => new AIMessage({ id, content: "", tool_calls: calls });
const result = (callId: string, id = `t-${callId}`) =>
  new ToolMessage({ id, content: `result of ${callId}`, tool_call_id: callId });

/** Shape of a message list: "human", "ai[c1,c2]", "tool(c1)". */
function shape(messages: BaseMessage[]): string[] {
  return messages.map((m) => {
    if (m instanceof ToolMessage) return `tool(${m.tool_call_id})`;
    if (m instanceof AIMessage && m.tool_calls?.length) return `ai[${m.tool_calls.map((c) => c.id).join(",")}]`;
    return m.type;
  });
}

test("a well-formed history is returned as is (same array)", () => {
  const messages = [
    new HumanMessage("hi"),
    ai("a1", call("c1"), call("c2")),
    result("c1"),
    result("c2"),
    new AIMessage("done"),
  ];
  assert.equal(patchDanglingToolCalls(messages), messages);
});

test("an interrupted call gets a placeholder error result right after its AI message", () => {
  const messages = [new HumanMessage("hi"), ai("a1", call("c1"), call("c2")), result("c1"), new HumanMessage("again")];
  const patched = patchDanglingToolCalls(messages);
  assert.deepEqual(shape(patched), ["human", "ai[c1,c2]", "tool(c1)", "tool(c2)", "human"]);
  const placeholder = patched[3] as ToolMessage;
  assert.equal(placeholder.status, "error");
  assert.equal(placeholder.content, INTERRUPTED_TOOL_RESULT);
  assert.equal(messages.length, 4, "the input is not modified");
});

test("results separated from their call by injected human messages are moved back next to it", () => {
  const messages = [
    ai("a1", call("c1")),
    new HumanMessage({ content: "<uploaded_files>", id: "u" }),
    result("c1"),
    new AIMessage("ok"),
  ];
  assert.deepEqual(shape(patchDanglingToolCalls(messages)), ["ai[c1]", "tool(c1)", "human", "ai"]);
});

test("results whose call is gone (compacted away) are dropped", () => {
  const messages = [result("gone"), new HumanMessage("hi"), ai("a1", call("c1")), result("c1"), result("c1", "dup")];
  assert.deepEqual(shape(patchDanglingToolCalls(messages)), ["human", "ai[c1]", "tool(c1)"]);
});

test("a tool-call id reused in a later turn pairs each result with the right call", () => {
  // Turn 1 was interrupted; turn 2 reuses the id "c1" and has its result.
  const messages = [
    new HumanMessage("one"),
    ai("a1", call("c1")),
    new HumanMessage("two"),
    ai("a2", call("c1")),
    result("c1", "r2"),
  ];
  const patched = patchDanglingToolCalls(messages);
  assert.deepEqual(shape(patched), ["human", "ai[c1]", "tool(c1)", "human", "ai[c1]", "tool(c1)"]);
  assert.equal((patched[2] as ToolMessage).status, "error", "turn 1 gets the placeholder");
  assert.equal(patched[5]!.id, "r2", "turn 2 keeps its real result");
});

test("invalid tool calls become calls with an error result, and the raw provider payload follows", () => {
  const message = new AIMessage({
    id: "a1",
    content: "",
    additional_kwargs: {
      tool_calls: [{ id: "bad", type: "function", function: { name: "write_file", arguments: "{not json" } }],
    },
    tool_calls: [],
    invalid_tool_calls: [
      { id: "bad", name: "write_file", args: "{not json", error: "Unexpected token n", type: "invalid_tool_call" },
    ],
  });
  const patched = patchDanglingToolCalls([new HumanMessage("hi"), message]);
  assert.deepEqual(shape(patched), ["human", "ai[bad]", "tool(bad)"]);
  const fixed = patched[1] as AIMessage;
  assert.deepEqual(fixed.invalid_tool_calls, []);
  assert.deepEqual(fixed.additional_kwargs.tool_calls, [
    { id: "bad", type: "function", function: { name: "write_file", arguments: "{}" } },
  ]);
  assert.match(String(patched[2]!.content), /nothing was written.*Parser error: Unexpected token n/);
  assert.equal(message.invalid_tool_calls?.length, 1, "the stored message is not modified");
});

test("calls without an id or name get synthetic ones and a placeholder", () => {
  const message = new AIMessage({
    id: "a1",
    content: "",
    tool_calls: [{ id: "", name: "", args: {}, type: "tool_call" }],
  });
  const patched = patchDanglingToolCalls([message]);
  const fixed = patched[0] as AIMessage;
  assert.equal(fixed.tool_calls![0]!.name, "unknown_tool");
  assert.ok(fixed.tool_calls![0]!.id);
  assert.equal((patched[1] as ToolMessage).tool_call_id, fixed.tool_calls![0]!.id);
  assert.match(String(patched[1]!.content), /name was missing or empty/);
});

test("in a real agent, a thread whose last run was interrupted mid-tool sends a paired request", async () => {
  const bash = tool(async () => "ok", { name: "bash", description: "run", schema: z.object({ command: z.string() }) });
  const model = new ScriptedChatModel([{ content: "recovered" }]);
  const agent = createAgent({
    model,
    tools: [bash],
    middleware: [danglingToolCallMiddleware()],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "t-dangling" } };
  // Simulate the interrupted run: the AI call is stored, its result never came.
  await agent.graph.updateState(config, {
    messages: [new HumanMessage({ id: "h1", content: "list" }), ai("a1", call("c-int"))],
  });
  await agent.invoke({ messages: [new HumanMessage({ id: "h2", content: "go on" })] }, config);
  const sent = model.calls[0]!.messages;
  assert.deepEqual(shape(sent), ["human", "ai[c-int]", "tool(c-int)", "human"]);
  const state = await agent.graph.getState(config);
  const stored = state.values.messages as BaseMessage[];
  assert.ok(!stored.some((m) => m instanceof ToolMessage), "the placeholder is request-only");
});

test("recurring tool-call ids in a new answer are renamed, in the message and its raw payload", () => {
  const response = new AIMessage({
    id: "a9",
    content: "",
    tool_calls: [call("call_0"), call("call_1"), call("call_1")],
    additional_kwargs: {
      tool_calls: ["call_0", "call_1", "call_1"].map((id) => ({
        id,
        type: "function",
        function: { name: "bash", arguments: "{}" },
      })),
    },
  });
  const renamed = renameRecurringToolCallIds(
    response,
    usedToolCallIds([ai("a1", call("call_0")), result("call_0")], ["call_0_2"]),
  );
  assert.deepEqual(
    renamed.tool_calls!.map((c) => c.id),
    ["call_0_3", "call_1", "call_1_2"],
  );
  assert.deepEqual(
    (renamed.additional_kwargs.tool_calls as { id: string }[]).map((c) => c.id),
    ["call_0_3", "call_1", "call_1_2"],
  );
  assert.equal(renamed.id, "a9");
  const fresh = new AIMessage({ id: "a10", content: "", tool_calls: [call("call_7")] });
  assert.equal(renameRecurringToolCallIds(fresh, new Set(["call_0"])), fresh);
});

test("in a real agent with an afterModel hook, parallel calls with recurring ids all run", async () => {
  const ran: string[] = [];
  const bash = tool(
    async ({ command }) => {
      ran.push(command);
      return `ran ${command}`;
    },
    { name: "bash", description: "run", schema: z.object({ command: z.string() }) },
  );
  // Like providers that number calls per response: every answer uses call_0, call_1.
  const model = new ScriptedChatModel([
    { tool_calls: [{ id: "call_0", name: "bash", args: { command: "one" } }] },
    { content: "first done" },
    {
      tool_calls: [
        { id: "call_0", name: "bash", args: { command: "two" } },
        { id: "call_1", name: "bash", args: { command: "three" } },
      ],
    },
    { content: "second done" },
  ]);
  const afterModelHook = createMiddleware({ name: "observer", afterModel: () => undefined });
  const agent = createAgent({
    model,
    tools: [bash],
    middleware: [danglingToolCallMiddleware(), afterModelHook],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "t-recurring" } };
  await agent.invoke({ messages: [new HumanMessage({ id: "q1", content: "one" })] }, config);
  await agent.invoke({ messages: [new HumanMessage({ id: "q2", content: "two and three" })] }, config);
  assert.deepEqual(ran, ["one", "two", "three"], "no call is taken as already answered");
  const sent = model.calls[3]!.messages;
  assert.ok(!sent.some((m) => m instanceof ToolMessage && m.status === "error"), "no placeholder was needed");
  assert.deepEqual(shape(sent.slice(-3)), ["ai[call_0_2,call_1]", "tool(call_0_2)", "tool(call_1)"]);
});

test("results saved with empty tool-call ids pair with their empty-id calls in order", () => {
  const messages = [
    new HumanMessage("hi"),
    ai("a1", call(""), call("")),
    result("", "r1"),
    result("", "r2"),
    new AIMessage("done"),
  ];
  const patched = patchDanglingToolCalls(messages);
  const ids = (patched[1] as AIMessage).tool_calls!.map((c) => c.id);
  assert.equal(new Set(ids).size, 2);
  assert.deepEqual(shape(patched), ["human", `ai[${ids.join(",")}]`, `tool(${ids[0]})`, `tool(${ids[1]})`, "ai"]);
  assert.deepEqual([patched[2]!.id, patched[3]!.id], ["r1", "r2"], "the real results are kept, not placeholders");
});

test("an empty tool-call id in the model's answer gets a fresh distinct id, raw payload included", () => {
  const message = new AIMessage({
    id: "m",
    content: "",
    tool_calls: [call(""), call("")],
    additional_kwargs: {
      tool_calls: [
        { id: "", type: "function", function: { name: "bash", arguments: "{}" } },
        { id: "", type: "function", function: { name: "bash", arguments: "{}" } },
      ],
    },
  });
  const renamed = renameRecurringToolCallIds(message, new Set());
  const ids = renamed.tool_calls!.map((c) => c.id!);
  assert.ok(ids.every((id) => id.startsWith("call_")));
  assert.equal(new Set(ids).size, 2);
  assert.deepEqual(
    (renamed.additional_kwargs.tool_calls as { id: string }[]).map((c) => c.id),
    ids,
  );
});

test("a call carried only in the raw provider payload gets its placeholder and is sent as a real call", () => {
  const message = new AIMessage({
    id: "a1",
    content: "",
    tool_calls: [],
    additional_kwargs: {
      tool_calls: [{ id: "raw1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }],
    },
  });
  const patched = patchDanglingToolCalls([new HumanMessage("hi"), message]);
  assert.deepEqual(shape(patched), ["human", "ai[raw1]", "tool(raw1)"]);
  assert.deepEqual((patched[1] as AIMessage).tool_calls![0]!.args, { command: "ls" });
  const placeholder = patched[2] as ToolMessage;
  assert.equal(placeholder.name, "bash");
  assert.equal(placeholder.status, "error");
  assert.equal(placeholder.content, INTERRUPTED_TOOL_RESULT);
});

test("a nameless call's existing result is renamed unknown_tool as well", () => {
  const message = new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: " ", args: {} }] });
  const existing = new ToolMessage({ id: "r1", content: "Error: invalid tool", tool_call_id: "c1", name: "" });
  const patched = patchDanglingToolCalls([message, existing]);
  assert.equal((patched[0] as AIMessage).tool_calls![0]!.name, "unknown_tool");
  assert.equal(patched[1]!.id, "r1", "the real result is kept");
  assert.equal((patched[1] as ToolMessage).name, "unknown_tool");
  assert.equal(existing.name, "", "the stored result is not modified");
});

test("an invalid call without a name gets the missing-name advice, not the invalid-arguments one", () => {
  const message = new AIMessage({
    id: "a1",
    content: "",
    tool_calls: [],
    invalid_tool_calls: [
      { id: "bad", name: "", args: "{oops", error: "Unexpected token o", type: "invalid_tool_call" },
    ],
  });
  const patched = patchDanglingToolCalls([message]);
  assert.equal((patched[1] as ToolMessage).name, "unknown_tool");
  assert.match(String(patched[1]!.content), /name was missing or empty/);
  assert.doesNotMatch(String(patched[1]!.content), /arguments were invalid/);
});

test("an invalid write_file call is told that nothing was written and to split the file", () => {
  const hugeArgs = `{"path":"/mnt/user-data/outputs/report.md","content":"# Report ${"x".repeat(5000)} {"json"}"}`;
  const message = new AIMessage({
    id: "a1",
    content: "",
    tool_calls: [],
    invalid_tool_calls: [
      {
        id: "w1",
        name: "write_file",
        args: hugeArgs,
        error: "Failed to parse tool arguments",
        type: "invalid_tool_call",
      },
    ],
  });
  const text = String(patchDanglingToolCalls([message])[1]!.content);
  assert.match(text, /write_file/);
  assert.match(text, /nothing was written/i);
  assert.match(text, /split/i);
  assert.match(text, /Failed to parse tool arguments/, "the parser error is echoed");
  assert.ok(!text.includes("xxxx"), "the malformed payload is not echoed back");
  const other = new AIMessage({
    id: "a2",
    content: "",
    tool_calls: [],
    invalid_tool_calls: [{ id: "s1", name: "search", args: "{", error: "Failed to parse", type: "invalid_tool_call" }],
  });
  const generic = String(patchDanglingToolCalls([other])[1]!.content);
  assert.match(generic, /arguments were invalid: Failed to parse/);
  assert.doesNotMatch(generic, /nothing was written/i);
});

test("an invalid call whose arguments are valid JSON keeps them and its result, with no placeholder", () => {
  const message = new AIMessage({
    id: "a1",
    content: "",
    tool_calls: [],
    invalid_tool_calls: [
      {
        id: "v1",
        name: "read_file",
        args: '{"path": "/tmp/data.csv"}',
        error: "schema validation failed",
        type: "invalid_tool_call",
      },
    ],
  });
  const answered = new ToolMessage({ id: "r1", content: "data", tool_call_id: "v1", name: "read_file" });
  const patched = patchDanglingToolCalls([message, answered]);
  assert.deepEqual(shape(patched), ["ai[v1]", "tool(v1)"]);
  assert.equal(patched[1], answered, "the real result is kept, no placeholder");
  assert.deepEqual((patched[0] as AIMessage).tool_calls![0]!.args, { path: "/tmp/data.csv" });
});

test("whitespace-only tool-call ids are replaced like empty ones, and their results follow", () => {
  const message = new AIMessage({ id: "a1", content: "", tool_calls: [call("  "), call(" c2 ")] });
  const patched = patchDanglingToolCalls([message, result("  ", "r1"), result(" c2 ", "r2")]);
  const [first, second] = (patched[0] as AIMessage).tool_calls!.map((c) => c.id!);
  assert.ok(first!.trim() && first !== "  ", "the blank id is replaced");
  assert.equal(second, " c2 ", "a real id is kept byte for byte");
  assert.deepEqual(shape(patched), [`ai[${first},${second}]`, `tool(${first})`, "tool( c2 )"]);
  assert.deepEqual([patched[1]!.id, patched[2]!.id], ["r1", "r2"]);
  const answer = renameRecurringToolCallIds(
    new AIMessage({ id: "m", content: "", tool_calls: [call(" ")] }),
    new Set(),
  );
  assert.match(answer.tool_calls![0]!.id!, /^call_/, "a blank id in the model's answer gets a fresh one");
});
