import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, ToolMessage, createAgent, tool } from "langchain";
import { MemorySaver, messagesStateReducer } from "@langchain/langgraph";
import { z } from "zod";
import { askClarificationTool, normalizeFields } from "../tools/ask-clarification.js";
import {
  CLARIFICATION_DISABLED_NOTE,
  clarificationFromMessages,
  clarificationMiddleware,
  moveClarificationLast,
} from "./clarification.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";

const ask = (id: string, args: Record<string, unknown>) => ({
  id,
  name: "ask_clarification",
  args,
  type: "tool_call" as const,
});
const question = {
  question: "Which city?",
  clarification_type: "missing_info",
  context: "The forecast needs a place.",
  options: ["Paris", "Lyon"],
};

test("moveClarificationLast puts ask_clarification after the other calls, keeping the id", () => {
  const message = new AIMessage({
    id: "ai-1",
    content: "",
    tool_calls: [ask("c1", question), { id: "w1", name: "write_file", args: {}, type: "tool_call" }],
  });
  const moved = moveClarificationLast(message);
  assert.equal(moved?.id, "ai-1");
  assert.deepEqual(
    moved?.tool_calls?.map((c) => c.id),
    ["w1", "c1"],
  );
  assert.equal(moveClarificationLast(moved!), undefined, "already last");
  assert.equal(moveClarificationLast(new AIMessage({ id: "ai-2", content: "hi" })), undefined);
});

test("clarificationFromMessages reads the pending question or gives null", () => {
  const pending = new ToolMessage({
    name: "ask_clarification",
    tool_call_id: "c1",
    content: "❓ The forecast needs a place.\n\nWhich city?\n\n1. Paris\n2. Lyon",
    additional_kwargs: { clarification: question },
  });
  assert.deepEqual(clarificationFromMessages([new HumanMessage("weather?"), pending]), {
    ...question,
    text: pending.text,
    tool_call_id: "c1",
  });
  assert.equal(clarificationFromMessages([pending, new AIMessage("answered")]), null);
  assert.equal(
    clarificationFromMessages([
      new ToolMessage({ name: "ask_clarification", tool_call_id: "c2", status: "error", content: "Error" }),
    ]),
    null,
  );
  assert.equal(clarificationFromMessages([]), null);
});

function agentWith(model: ScriptedChatModel, tools: Parameters<typeof createAgent>[0]["tools"] = []) {
  return createAgent({
    model,
    tools: [askClarificationTool, ...(tools ?? [])],
    middleware: [clarificationMiddleware()],
    checkpointer: new MemorySaver(),
  });
}

test("a clarification run calls the model once and ends on the formatted question; the answer continues the thread", async () => {
  const model = new ScriptedChatModel([
    new AIMessage({ id: "ai-1", content: "", tool_calls: [ask("c1", question)] }),
    new AIMessage({ id: "ai-2", content: "Sunny in Lyon." }),
  ]);
  const agent = agentWith(model);
  const config = { configurable: { thread_id: "clarify-1" } };

  const first = await agent.invoke(
    { messages: [new HumanMessage({ id: "h-1", content: "What's the weather?" })] },
    config,
  );

  assert.equal(model.callCount, 1);
  const last = first.messages.at(-1);
  assert.ok(ToolMessage.isInstance(last));
  assert.equal(last.text, "❓ The forecast needs a place.\n\nWhich city?\n\n1. Paris\n2. Lyon");
  assert.deepEqual(clarificationFromMessages(first.messages)?.options, ["Paris", "Lyon"]);
  assert.equal(last.id, "clarification:c1");

  const second = await agent.invoke({ messages: [new HumanMessage({ id: "h-2", content: "2" })] }, config);
  assert.equal(model.callCount, 2);
  assert.equal(second.messages.at(-1)?.text, "Sunny in Lyon.");
  assert.equal(clarificationFromMessages(second.messages), null);
});

test("other tool calls of the same response still run, and the run still stops on the question", async () => {
  const ran: string[] = [];
  const note = tool(
    async ({ text }) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      ran.push(text);
      return "noted";
    },
    { name: "note", description: "Take a note.", schema: z.object({ text: z.string() }) },
  );
  const model = new ScriptedChatModel([
    new AIMessage({
      id: "ai-1",
      content: "",
      tool_calls: [ask("c1", question), { id: "n1", name: "note", args: { text: "draft" }, type: "tool_call" }],
    }),
  ]);
  const out = await agentWith(model, [note]).invoke(
    { messages: [new HumanMessage({ id: "h-1", content: "Weather?" })] },
    { configurable: { thread_id: "clarify-2" } },
  );

  assert.equal(model.callCount, 1);
  assert.deepEqual(ran, ["draft"]);
  assert.equal(clarificationFromMessages(out.messages)?.question, "Which city?");
});

test("invalid clarification arguments come back as an error and the model can retry", async () => {
  const model = new ScriptedChatModel([
    new AIMessage({
      id: "ai-1",
      content: "",
      tool_calls: [ask("c1", { question: "Which city?", clarification_type: "whatever" })],
    }),
    new AIMessage({ id: "ai-2", content: "", tool_calls: [ask("c2", question)] }),
  ]);
  const out = await agentWith(model).invoke(
    { messages: [new HumanMessage({ id: "h-1", content: "Weather?" })] },
    { configurable: { thread_id: "clarify-3" } },
  );

  assert.equal(model.callCount, 2);
  const error = out.messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === "c1") as ToolMessage;
  assert.equal(error.status, "error");
  assert.match(error.text, /^Error: ask_clarification was called with invalid arguments \(clarification_type: /);
  assert.equal(clarificationFromMessages(out.messages)?.tool_call_id, "c2");
});

test("options sent as null, a JSON string or a plain string still end the run on the question", async () => {
  for (const [index, options] of [null, '["Paris", "Lyon"]', "Paris"].entries()) {
    const model = new ScriptedChatModel([
      new AIMessage({ id: `ai-o${index}`, content: "", tool_calls: [ask(`o${index}`, { ...question, options })] }),
    ]);
    const out = await agentWith(model).invoke(
      { messages: [new HumanMessage({ id: `h-o${index}`, content: "Weather?" })] },
      { configurable: { thread_id: `clarify-o${index}` } },
    );
    assert.equal(model.callCount, 1);
    const pending = clarificationFromMessages(out.messages);
    assert.equal(pending?.question, "Which city?", `options ${JSON.stringify(options)}`);
    assert.deepEqual(pending?.options, [undefined, ["Paris", "Lyon"], ["Paris"]][index]);
  }
});

test("the question's message id and request id are clarification:<call id>, so a retried call replaces it", async () => {
  const middleware = clarificationMiddleware();
  const answer = async (call: { id?: string; name: string; args: Record<string, unknown> }) =>
    (await middleware.wrapToolCall!({ toolCall: call } as never, () =>
      assert.fail("the tool must not run"),
    )) as ToolMessage;
  const first = await answer(ask("c1", question));
  const retried = await answer(ask("c1", question));
  const request = (first.artifact as { human_input: { request_id: string; tool_call_id: string } }).human_input;
  assert.deepEqual(
    [first.id, request.request_id, request.tool_call_id],
    ["clarification:c1", "clarification:c1", "c1"],
  );
  assert.equal(messagesStateReducer(messagesStateReducer([], [first]), [retried]).length, 1);

  const withoutId = { ...ask("", question), id: undefined };
  const [a, b] = [await answer(withoutId), await answer(withoutId)];
  assert.match(a.id!, /^clarification:[0-9a-f]{16}$/);
  assert.equal(b.id, a.id, "a call without an id is keyed by its question");
});

test("normalizeFields: labels default to names, option-less selects become text, a broken field drops the form", () => {
  assert.deepEqual(
    normalizeFields([
      { name: "env", type: "select", options: ["dev", "prod"], required: true },
      { name: "count", label: "How many?", type: "number", placeholder: " 3 " },
      { name: "tags", type: "multi_select" },
      { name: "when", type: "calendar" },
    ]),
    [
      {
        name: "env",
        label: "env",
        type: "select",
        required: true,
        options: [
          { id: "env-option-1", label: "dev", value: "dev" },
          { id: "env-option-2", label: "prod", value: "prod" },
        ],
      },
      { name: "count", label: "How many?", type: "number", required: false, placeholder: "3" },
      { name: "tags", label: "tags", type: "text", required: false },
      { name: "when", label: "when", type: "text", required: false },
    ],
  );
  assert.equal(normalizeFields('[{"name": "a"}]').length, 1, "JSON in a string");
  assert.deepEqual(normalizeFields([{ name: "a" }, { name: "a" }]), [], "duplicate name");
  assert.deepEqual(normalizeFields([{ name: "a" }, { label: "no name" }]), [], "missing name");
  assert.deepEqual(normalizeFields([{ name: "constructor" }]), [], "reserved name");
  assert.deepEqual(normalizeFields(Array.from({ length: 17 }, (_, i) => ({ name: `f${i}` }))), [], "too many");
  assert.deepEqual(normalizeFields(null), []);
});

test("a form (v2) ends the run on the question with its fields in the text, the request and the pending clarification", async () => {
  const fields = [
    { name: "env", label: "Environment", type: "select", options: ["staging", "prod"], required: true },
    { name: "notes", type: "textarea" },
  ];
  const model = new ScriptedChatModel([
    new AIMessage({
      id: "ai-1",
      content: "",
      tool_calls: [ask("c1", { question: "Deployment details?", clarification_type: "missing_info", fields })],
    }),
  ]);
  const result = await agentWith(model).invoke(
    { messages: [new HumanMessage("deploy")] },
    { configurable: { thread_id: "form-1" } },
  );
  const last = result.messages.at(-1);
  assert.ok(ToolMessage.isInstance(last));
  assert.equal(
    last.text,
    "❓ Deployment details?\n\n1. Environment (required) - options: staging / prod\n2. notes\n\nPlease reply with a value for each field.",
  );
  const request = (last.artifact as { human_input: Record<string, unknown> }).human_input;
  assert.equal(request.version, 2);
  assert.equal(request.input_mode, "form");
  assert.deepEqual(
    (request.fields as { name: string; type: string }[]).map((field) => [field.name, field.type]),
    [
      ["env", "select"],
      ["notes", "textarea"],
    ],
  );
  assert.equal(request.options, undefined);
  assert.deepEqual(
    clarificationFromMessages(result.messages)?.fields?.map((field) => field.label),
    ["Environment", "notes"],
  );
});

test("v1 questions keep version 1; a broken form falls back to the plain question", async () => {
  const middleware = clarificationMiddleware();
  const answer = async (args: Record<string, unknown>) =>
    (await middleware.wrapToolCall!({ toolCall: ask("c1", args) } as never, () =>
      assert.fail("the tool must not run"),
    )) as ToolMessage;
  const v1 = await answer(question);
  const v1Request = (v1.artifact as { human_input: Record<string, unknown> }).human_input;
  assert.deepEqual([v1Request.version, v1Request.input_mode], [1, "choice_with_other"]);
  const broken = await answer({ ...question, fields: [{ name: "a" }, { name: "a" }] });
  const brokenRequest = (broken.artifact as { human_input: Record<string, unknown> }).human_input;
  assert.deepEqual([brokenRequest.version, brokenRequest.input_mode], [1, "choice_with_other"]);
  assert.equal(broken.text, v1.text);
});

test("disable_clarification: ask_clarification is not offered, the model is told to proceed, a call anyway does not end the run", async () => {
  const model = new ScriptedChatModel([
    new AIMessage({ id: "ai-1", content: "", tool_calls: [ask("c1", question)] }),
    new AIMessage({ id: "ai-2", content: "Assuming Paris: sunny." }),
  ]);
  const agent = createAgent({
    model,
    tools: [askClarificationTool],
    systemPrompt: "You are helpful.",
    middleware: [clarificationMiddleware({ disabled: true })],
    checkpointer: new MemorySaver(),
  });
  const result = await agent.invoke(
    { messages: [new HumanMessage("weather?")] },
    { configurable: { thread_id: "off" } },
  );
  assert.deepEqual(model.calls[0]!.toolNames, []);
  assert.match(model.calls[0]!.messages[0]!.text, /You are helpful\.\n\nClarification is disabled for this run/);
  const reply = result.messages.find((message) => ToolMessage.isInstance(message));
  assert.equal(reply?.text, CLARIFICATION_DISABLED_NOTE);
  assert.equal(result.messages.at(-1)?.text, "Assuming Paris: sunny.");
  assert.equal(clarificationFromMessages(result.messages), null);
  model.assertDone();
});

test("a form with an unknown field type, options as a JSON string and fields as JSON still ends on the question", async () => {
  const fields = JSON.stringify([
    { name: "when", type: "calendar" },
    { name: "env", type: "select", options: '["a","b"]', required: "true" },
  ]);
  const model = new ScriptedChatModel([
    new AIMessage({
      id: "ai-1",
      content: "",
      tool_calls: [ask("c1", { question: "Details?", clarification_type: "missing_info", fields })],
    }),
  ]);
  const result = await agentWith(model).invoke(
    { messages: [new HumanMessage("go")] },
    { configurable: { thread_id: "odd" } },
  );
  assert.deepEqual(
    clarificationFromMessages(result.messages)?.fields?.map((field) => [field.name, field.type, field.required]),
    [
      ["when", "text", false],
      ["env", "select", true],
    ],
  );
});
