import { test } from "node:test";
import assert from "node:assert/strict";
import { HumanMessage, ToolMessage, createAgent, tool } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { errorKey, failureStreak, toolProgressMiddleware } from "./tool-progress.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { toolErrorsMiddleware } from "./tool-errors.js";

const result = (name: string, content: string, status: "success" | "error" = "error") =>
  new ToolMessage({ name, content, tool_call_id: `${name}-${Math.random()}`, status });

test("errorKey ignores numbers, spacing and the lines after the first", () => {
  assert.equal(errorKey("Error: HTTP 503 after 30.2 s\nRetry later."), "Error: HTTP # after # s");
  assert.equal(errorKey("\n  Error:  HTTP 503 after 31 s"), errorKey("Error: HTTP 504 after 2.5 s"));
});

test("failureStreak counts one tool's identical failures in a row in the current run; a success or a new run resets it", () => {
  const fail = (text: string) => result("lookup", text);
  assert.deepEqual(
    failureStreak(
      [new HumanMessage("q"), fail("Error: 503"), result("other", "Error: x"), fail("Error: 504")],
      "lookup",
    ),
    {
      error: "Error: #",
      count: 2,
      stopped: false,
    },
  );
  assert.equal(failureStreak([fail("Error: a"), fail("Error: b")], "lookup").count, 1);
  assert.equal(
    failureStreak([fail("Error: a"), result("lookup", "ok", "success"), fail("Error: a")], "lookup").count,
    1,
  );
  assert.equal(failureStreak([fail("Error: a"), fail("Error: a"), new HumanMessage("again")], "lookup").count, 0);
  // Hidden harness messages (the todo reminder) do not start a new run.
  const hidden = new HumanMessage({ content: "r", additional_kwargs: { hide_from_ui: true } });
  assert.equal(failureStreak([new HumanMessage("q"), fail("Error: a"), hidden, fail("Error: a")], "lookup").count, 2);
});

test("a tool failing the same way is warned about from warnAfter, stopped at stopAfter, then not run again this run", async () => {
  let runs = 0;
  const lookup = tool(
    async ({ id }) => {
      runs += 1;
      throw new Error(`order service unavailable (id ${id})`);
    },
    { name: "lookup", description: "Looks up an order.", schema: z.object({ id: z.string() }) },
  );
  const call = (id: string) => ({ tool_calls: [{ name: "lookup", args: { id } }] });
  const model = new ScriptedChatModel([call("1"), call("2"), call("3"), call("4"), { content: "giving up" }]);
  const warnings: string[] = [];
  const agent = createAgent({
    model,
    tools: [lookup],
    middleware: [
      toolProgressMiddleware({ warnAfter: 2, stopAfter: 3, onWarning: (w) => warnings.push(w) }),
      // Inside it, as in the lead chain: the tool's exception becomes an error result it can count.
      toolErrorsMiddleware(),
    ],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "progress" } };
  const out = await agent.invoke({ messages: [new HumanMessage("order?")] }, config);
  model.assertDone();
  const texts = out.messages.filter((message) => ToolMessage.isInstance(message)).map((message) => message.text);
  assert.equal(runs, 3, "the 4th call is refused without running the tool");
  assert.doesNotMatch(texts[0]!, /\[Progress warning/);
  assert.match(texts[1]!, /\[Progress warning: lookup has failed 2 times in a row with the same error/);
  assert.match(texts[2]!, /\[Tool stopped: lookup has now failed 3 times in a row/);
  assert.match(texts[3]!, /^Error: lookup is stopped for the rest of this run/);
  assert.equal(warnings.length, 1);

  // A new user message is a new run: the tool may be tried again.
  const next = new ScriptedChatModel([call("5"), { content: "still down" }]);
  const again = createAgent({
    model: next,
    tools: [lookup],
    middleware: [toolProgressMiddleware({ warnAfter: 2, stopAfter: 3, onWarning: () => {} }), toolErrorsMiddleware()],
    checkpointer: new MemorySaver(),
  });
  const second = await again.invoke({ messages: [...out.messages, new HumanMessage("try again")] }, config);
  assert.equal(runs, 4);
  assert.doesNotMatch(second.messages.at(-2)!.text, /stopped|warning/i);
});
