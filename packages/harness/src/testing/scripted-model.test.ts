import { test } from "node:test";
import assert from "node:assert/strict";
import { createAgent, tool, AIMessage, HumanMessage, type BaseMessage } from "langchain";
import { z } from "zod";
import { ScriptedChatModel } from "./scripted-model.js";

const echo = tool(async ({ text }) => `echo: ${text}`, {
  name: "echo",
  description: "Echo the text back.",
  schema: z.object({ text: z.string() }),
});
const user = (content: string) => ({ messages: [{ role: "user", content }] });

test("drives a createAgent tool loop and records each call", async () => {
  const model = new ScriptedChatModel([
    { tool_calls: [{ name: "echo", args: { text: "hi" } }] },
    (messages) => ({ content: `tool said: ${messages.at(-1)!.text}` }),
  ]);
  const agent = createAgent({ model, tools: [echo], systemPrompt: "You are a test." });
  const out = await agent.invoke(user("say hi"));

  assert.deepEqual(
    out.messages.map((m: BaseMessage) => [m.type, m.text]),
    [
      ["human", "say hi"],
      ["ai", ""],
      ["tool", "echo: hi"],
      ["ai", "tool said: echo: hi"],
    ],
  );
  assert.equal(model.callCount, 2);
  assert.deepEqual(model.calls[0]!.toolNames, ["echo"]);
  assert.equal(model.calls[0]!.messages[0]!.type, "system");
  assert.equal(model.calls[1]!.messages.at(-1)!.type, "tool");
  model.assertDone();
});

test("every emitted message and tool call gets a unique id", async () => {
  const model = new ScriptedChatModel([
    {
      tool_calls: [
        { name: "echo", args: { text: "a" } },
        { name: "echo", args: { text: "b" } },
      ],
    },
    new AIMessage({ content: "", tool_calls: [{ name: "echo", args: { text: "c" } }] }),
    { content: "done" },
  ]);
  const out = await createAgent({ model, tools: [echo] }).invoke(user("go"));
  const ai = out.messages.filter((m: BaseMessage) => m.type === "ai") as AIMessage[];
  assert.equal(ai.length, 3, "no AI message was replaced by a later one");
  assert.equal(new Set(ai.map((m) => m.id)).size, 3);
  const callIds = ai.flatMap((m) => m.tool_calls ?? []).map((c) => c.id);
  assert.equal(callIds.length, 3);
  assert.equal(new Set(callIds).size, 3);
  assert.ok(callIds.every((id) => typeof id === "string" && id.length > 0));
});

test("keeps explicit ids but refuses to emit the same message id twice", async () => {
  const model = new ScriptedChatModel([{ content: "one", id: "fixed" }], { loop: true });
  const first = await model.invoke([new HumanMessage("a")]);
  assert.equal(first.id, "fixed");
  await assert.rejects(model.invoke([new HumanMessage("b")]), /emit message id "fixed" a second time/);
});

test("fails loudly when the script runs out, naming the call and the last message", async () => {
  const model = new ScriptedChatModel([{ tool_calls: [{ name: "echo", args: { text: "x" } }] }], { name: "lead" });
  const agent = createAgent({ model, tools: [echo] });
  await assert.rejects(agent.invoke(user("go")), (error: Error) => {
    assert.match(error.message, /lead: unexpected model call #2: the script ran out after 1 step/);
    assert.match(error.message, /Last message: \(tool\) "echo: x"/);
    assert.match(error.message, /Bound tools: echo/);
    return true;
  });
  assert.equal(model.callCount, 2, "the unexpected call is recorded too");
});

test("an Error step is thrown to the caller", async () => {
  const model = new ScriptedChatModel([new Error("provider down")]);
  await assert.rejects(createAgent({ model, tools: [echo] }).invoke(user("go")), /provider down/);
});

test("assertDone reports unused steps", async () => {
  const model = new ScriptedChatModel([{ content: "a" }, { tool_calls: [{ name: "echo", args: {} }] }]);
  await model.invoke([new HumanMessage("hi")]);
  assert.equal(model.remaining, 1);
  assert.throws(
    () => model.assertDone(),
    /1 of 2 script steps were never used \(first unused: step 2, tool calls echo\)/,
  );
});

test("a generator script runs a 300-turn tool loop", async () => {
  const turns = 300;
  function* script() {
    for (let i = 0; i < turns; i++) yield { tool_calls: [{ name: "echo", args: { text: `t${i}` } }] };
    yield { content: "finished" };
  }
  const model = new ScriptedChatModel(script());
  const out = await createAgent({ model, tools: [echo] }).invoke(user("loop"), { recursionLimit: 2 * turns + 10 });
  assert.equal(out.messages.at(-1)!.text, "finished");
  assert.equal(out.messages.length, 1 + 2 * turns + 1);
  assert.equal(new Set(out.messages.map((m: BaseMessage) => m.id)).size, out.messages.length);
  model.assertDone();
});

test("loop replays the script and passes the call index to function steps", async () => {
  const model = new ScriptedChatModel([(_messages, i) => ({ content: `call ${i}` })], { loop: true });
  const texts = [];
  for (let i = 0; i < 3; i++) texts.push((await model.invoke([new HumanMessage("x")])).text);
  assert.deepEqual(texts, ["call 0", "call 1", "call 2"]);
  model.assertDone();
});

test("streamMode messages yields the scripted replies", async () => {
  const model = new ScriptedChatModel([
    { tool_calls: [{ name: "echo", args: { text: "s" } }] },
    { content: "streamed answer" },
  ]);
  const agent = createAgent({ model, tools: [echo] });
  const seen: string[] = [];
  for await (const [chunk, meta] of await agent.stream(user("go"), { streamMode: "messages" })) {
    seen.push(`${(meta as { langgraph_node: string }).langgraph_node}:${chunk.type}:${chunk.text}`);
  }
  assert.deepEqual(seen, ["model_request:ai:", "tools:tool:echo: s", "model_request:ai:streamed answer"]);
});

test("model.stream falls back to one chunk holding the whole reply", async () => {
  const model = new ScriptedChatModel([{ content: "whole" }]);
  const chunks = [];
  for await (const chunk of await model.stream([new HumanMessage("x")])) chunks.push(chunk.text);
  assert.deepEqual(chunks, ["whole"]);
});
