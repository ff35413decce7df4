import assert from "node:assert/strict";
import { test } from "node:test";
import { MemorySaver } from "@langchain/langgraph";
import { HumanMessage, createAgent, tool } from "langchain";
import { z } from "zod";
import { catalogueHash, deferredToolsMiddleware } from "./deferred-tools.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";

const mcpTool = (name: string, description: string) =>
  tool(async () => "ok", { name, description, schema: z.object({ q: z.string() }) });

test("catalogueHash is stable for the same tools in any order and changes with a description or membership", () => {
  const a = mcpTool("get_issue", "Fetch an issue");
  const b = mcpTool("create_issue", "Open an issue");
  assert.equal(catalogueHash([a, b]), catalogueHash([mcpTool("create_issue", "Open an issue"), a]));
  assert.notEqual(catalogueHash([a, b]), catalogueHash([a, mcpTool("create_issue", "Open a GitHub issue")]));
  assert.notEqual(catalogueHash([a, b]), catalogueHash([a]));
  assert.match(catalogueHash([a]), /^[0-9a-f]{16}$/);
});

test("promoted tools stay bound while the catalogue is the same and are reset when it changes", async () => {
  const checkpointer = new MemorySaver();
  const config = { configurable: { thread_id: "dt" } };
  /** One run on the shared thread with `catalogue` deferred; returns the tools bound on its model call. */
  const run = async (catalogue: ReturnType<typeof mcpTool>[], promote: boolean) => {
    const model = new ScriptedChatModel(
      promote
        ? [{ tool_calls: [{ name: "tool_search", args: { query: "select:get_issue" } }] }, { content: "loaded" }]
        : [{ content: "hi" }],
    );
    const agent = createAgent({
      model,
      tools: catalogue,
      middleware: [deferredToolsMiddleware({ deferred: catalogue })],
      checkpointer,
    });
    await agent.invoke({ messages: [new HumanMessage("go")] }, config);
    return model.calls.at(-1)!.toolNames;
  };
  const v1 = [mcpTool("get_issue", "Fetch an issue"), mcpTool("create_issue", "Open an issue")];
  assert.deepEqual(await run(v1, true), ["get_issue", "tool_search"], "promoted by tool_search");
  assert.deepEqual(await run(v1, false), ["get_issue", "tool_search"], "same catalogue: still promoted");
  const v2 = [mcpTool("get_issue", "Fetch an issue, with comments"), mcpTool("create_issue", "Open an issue")];
  assert.deepEqual(await run(v2, false), ["tool_search"], "changed catalogue: promotions reset");
});
