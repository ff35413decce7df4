import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, createAgent, tool } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { countRepeats, loopDetectionMiddleware } from "./loop-detection.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";

test("countRepeats counts a key wherever it sits in the window and says whether the repeats are in a row", () => {
  assert.deepEqual(countRepeats(["A", "B", "A", "B", "A"], "A"), { count: 3, inARow: false });
  assert.deepEqual(countRepeats(["B", "A", "A"], "A"), { count: 2, inARow: true });
  assert.deepEqual(countRepeats(["A"], "A"), { count: 1, inARow: true });
  assert.deepEqual(countRepeats([], "A"), { count: 0, inARow: false });
});

test("a model alternating between two calls (A, B, A, B, ...) is warned, then stopped with loop_capped", async () => {
  const ran: string[] = [];
  const lookup = tool(
    async ({ city }) => {
      ran.push(city);
      return `sunny in ${city}`;
    },
    { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) },
  );
  const a = { tool_calls: [{ name: "weather", args: { city: "Oslo" } }] };
  const b = { tool_calls: [{ name: "weather", args: { city: "Rome" } }] };
  const model = new ScriptedChatModel([a, b, a, b, a]);
  const warnings: string[] = [];
  const agent = createAgent({
    model,
    tools: [lookup],
    middleware: [loopDetectionMiddleware({ warnThreshold: 2, hardLimit: 3, onWarning: (w) => warnings.push(w) })],
    checkpointer: new MemorySaver(),
  });
  const out = await agent.invoke(
    { messages: [new HumanMessage("weather in Oslo and Rome?")] },
    { configurable: { thread_id: "abab" } },
  );
  model.assertDone();
  // The third Oslo call is not run: A, B, A, B ran, and the run ended on the fifth response.
  assert.deepEqual(ran, ["Oslo", "Rome", "Oslo", "Rome"]);
  const results = out.messages.filter((message) => message.getType() === "tool").map((message) => message.text);
  assert.doesNotMatch(results[1]!, /Loop warning/);
  assert.match(results[2]!, /\[Loop warning: .*\(weather with the same arguments\) 2 times in the last 20 rounds/);
  const last = out.messages.at(-1)!;
  assert.ok(AIMessage.isInstance(last));
  assert.equal(last.tool_calls?.length ?? 0, 0);
  assert.equal(last.additional_kwargs.stop_reason, "loop_capped");
  assert.match(last.text, /\[Stopped: the same tool call \(weather\) .* 3 times in the last 20 rounds of tool calls/);
  assert.equal(warnings.length, 1);
});

test("calls that recur only outside the window are not a loop", async () => {
  const lookup = tool(async ({ city }) => `sunny in ${city}`, {
    name: "weather",
    description: "Weather.",
    schema: z.object({ city: z.string() }),
  });
  const call = (city: string) => ({ tool_calls: [{ name: "weather", args: { city } }] });
  // Oslo three times, but never more than once within any 3 consecutive responses.
  const model = new ScriptedChatModel([
    call("Oslo"),
    call("Rome"),
    call("Paris"),
    call("Oslo"),
    call("Rome"),
    call("Paris"),
    call("Oslo"),
    { content: "done" },
  ]);
  const agent = createAgent({
    model,
    tools: [lookup],
    middleware: [loopDetectionMiddleware({ warnThreshold: 2, hardLimit: 3, windowSize: 3, onWarning: () => {} })],
    checkpointer: new MemorySaver(),
  });
  const out = await agent.invoke({ messages: [new HumanMessage("tour")] }, { configurable: { thread_id: "spread" } });
  model.assertDone();
  assert.equal(out.messages.at(-1)!.text, "done");
  assert.ok(out.messages.every((message) => !/Loop warning/.test(message.text)));
});
