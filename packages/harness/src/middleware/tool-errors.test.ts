import assert from "node:assert/strict";
import { test } from "node:test";
import { MemorySaver } from "@langchain/langgraph";
import { AIMessage, HumanMessage, ToolMessage, createAgent, createMiddleware, tool } from "langchain";
import { z } from "zod";
import { describeToolError, toolErrorsMiddleware } from "./tool-errors.js";
import { classifyToolError } from "./tool-result-meta.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";

test("describeToolError names the tool and the error, whatever was thrown", () => {
  assert.match(
    describeToolError("fetch", new TypeError("bad url")),
    /^Error: tool "fetch" failed: TypeError: bad url\n/,
  );
  assert.match(describeToolError("fetch", { code: 7 }), /failed: \{"code":7\}/);
  assert.match(describeToolError("fetch", "plain"), /failed: plain/);
  assert.match(describeToolError("fetch", new Error("x".repeat(5000))), /\.\.\. \(5000 chars\)/);
});

test("with another wrapToolCall middleware in the chain, a throwing tool no longer ends the run", async () => {
  const boom = tool(
    async () => {
      throw new Error("disk full");
    },
    { name: "save", description: "Saves.", schema: z.object({}) },
  );
  const passthrough = createMiddleware({ name: "passthrough", wrapToolCall: (request, handler) => handler(request) });
  const model = new ScriptedChatModel([
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "save", args: {}, type: "tool_call" }] }),
    new AIMessage({ id: "a2", content: "Saving failed: disk full." }),
  ]);
  const agent = createAgent({
    model,
    tools: [boom],
    middleware: [toolErrorsMiddleware(), passthrough],
    checkpointer: new MemorySaver(),
  });
  const out = await agent.invoke(
    { messages: [new HumanMessage({ id: "h", content: "save" })] },
    { configurable: { thread_id: "te" } },
  );
  const result = out.messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
  assert.equal(result.status, "error");
  assert.match(result.text, /^Error: tool "save" failed: disk full/);
  assert.equal(out.messages.at(-1)!.text, "Saving failed: disk full.");
});

test("classifyToolError tells failures that may pass from those that will not", () => {
  assert.equal(classifyToolError(Object.assign(new Error("connect failed"), { code: "ECONNRESET" })), "transient");
  assert.equal(classifyToolError(new Error("request timed out after 30 s")), "transient");
  assert.equal(classifyToolError("Error: HTTP 503 Service Unavailable"), "transient");
  assert.equal(classifyToolError('Error: file "notes.md" does not exist'), "permanent");
  assert.equal(classifyToolError(new TypeError("bad url")), "permanent");
});

test("error results carry tool_meta.error_type, thrown or returned; successes carry none", async () => {
  const flaky = tool(
    async () => {
      throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    },
    { name: "fetch_page", description: "Fetches.", schema: z.object({}) },
  );
  const refuses = tool(
    async (_args, config) =>
      new ToolMessage({
        content: "Error: path /etc is outside the sandbox",
        tool_call_id: config.toolCall.id,
        status: "error",
      }),
    { name: "read", description: "Reads.", schema: z.object({}) },
  );
  const fine = tool(async () => "ok", { name: "ping", description: "Pings.", schema: z.object({}) });
  const passthrough = createMiddleware({ name: "passthrough", wrapToolCall: (request, handler) => handler(request) });
  const model = new ScriptedChatModel([
    {
      tool_calls: [
        { id: "c1", name: "fetch_page" },
        { id: "c2", name: "read" },
        { id: "c3", name: "ping" },
      ],
    },
    { content: "done" },
  ]);
  const agent = createAgent({
    model,
    tools: [flaky, refuses, fine],
    middleware: [toolErrorsMiddleware(), passthrough],
  });
  const out = await agent.invoke({ messages: [new HumanMessage("go")] });
  const results = out.messages.filter((m) => ToolMessage.isInstance(m)) as ToolMessage[];
  const meta = Object.fromEntries(results.map((m) => [m.tool_call_id, m.additional_kwargs.tool_meta]));
  assert.deepEqual(meta, {
    c1: { status: "error", error_type: "transient" },
    c2: { status: "error", error_type: "permanent" },
    c3: undefined,
  });
});
