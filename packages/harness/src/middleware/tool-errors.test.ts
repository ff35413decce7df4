import assert from "node:assert/strict";
import { test } from "node:test";
import { MemorySaver } from "@langchain/langgraph";
import { AIMessage, HumanMessage, ToolMessage, createAgent, createMiddleware, tool } from "langchain";
import { z } from "zod";
import { describeToolError, toolErrorsMiddleware } from "./tool-errors.js";
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
