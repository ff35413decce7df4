import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, createAgent, tool } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { loopDetectionMiddleware, loopRepeats } from "./loop-detection.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";

test("loopRepeats counts the newest call's turns in the exact cycle that ends with it", () => {
  assert.deepEqual(loopRepeats(["A", "B", "A", "B", "A"]), { count: 3, period: 2 });
  assert.deepEqual(loopRepeats(["X", "A", "B", "C", "A", "B", "C", "A", "B", "C"]), { count: 3, period: 3 });
  assert.deepEqual(loopRepeats(["B", "A", "A"]), { count: 2, period: 1 });
  assert.deepEqual(loopRepeats(["A", "A", "A", "A"]), { count: 4, period: 1 });
  assert.deepEqual(loopRepeats(["test", "edit 1", "test", "edit 2", "test"]), { count: 2, period: 2 });
  assert.deepEqual(loopRepeats(["A"]), { count: 1, period: 1 });
  assert.deepEqual(loopRepeats([]), { count: 0, period: 1 });
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
  assert.match(
    results[2]!,
    /\[Loop warning: .*\(weather with the same arguments\) 2 times, going round the same 2 calls/,
  );
  const last = out.messages.at(-1)!;
  assert.ok(AIMessage.isInstance(last));
  assert.equal(last.tool_calls?.length ?? 0, 0);
  assert.equal(last.additional_kwargs.stop_reason, "loop_capped");
  assert.match(
    last.text,
    /\[Stopped: the same tool call \(weather\) .* 3 times, going round the same 2 calls again and again/,
  );
  assert.equal(warnings.length, 1);
});

test("a call that comes back with different work in between (test, edit, test, edit) is progress, not a loop", async () => {
  const run = tool(async ({ command }) => `ran ${command}`, {
    name: "bash",
    description: "Runs a command.",
    schema: z.object({ command: z.string() }),
  });
  const call = (command: string) => ({ tool_calls: [{ name: "bash", args: { command } }] });
  const model = new ScriptedChatModel([
    call("npm test"),
    call("fix 1"),
    call("npm test"),
    call("fix 2"),
    call("npm test"),
    call("fix 3"),
    call("npm test"),
    { content: "done" },
  ]);
  const agent = createAgent({
    model,
    tools: [run],
    middleware: [loopDetectionMiddleware({ warnThreshold: 3, hardLimit: 3, onWarning: () => {} })],
    checkpointer: new MemorySaver(),
  });
  const out = await agent.invoke(
    { messages: [new HumanMessage("fix it")] },
    { configurable: { thread_id: "progress" } },
  );
  model.assertDone();
  assert.equal(out.messages.at(-1)!.text, "done");
  assert.ok(out.messages.every((message) => !/Loop warning/.test(message.text)));
});
