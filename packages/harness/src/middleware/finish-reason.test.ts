import assert from "node:assert/strict";
import { test } from "node:test";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { finishStop, joinContinuation } from "./finish-reason.js";
import { emptyAnswerMiddleware, isEmptyAnswer } from "./empty-answer.js";

test("finishStop reads each provider's spelling of a cut or filtered answer", () => {
  const stop = (metadata: Record<string, unknown>) =>
    finishStop(new AIMessage({ content: "x", response_metadata: metadata }))?.kind;
  assert.equal(stop({ finish_reason: "length" }), "length");
  assert.equal(stop({ stop_reason: "max_tokens" }), "length");
  assert.equal(stop({ finish_reason: "MAX_TOKENS" }), "length");
  assert.equal(stop({ done_reason: "length" }), "length");
  assert.equal(stop({ finish_reason: "content_filter" }), "safety");
  assert.equal(stop({ stop_reason: "refusal" }), "safety");
  assert.equal(stop({ finish_reason: "SAFETY" }), "safety");
  assert.equal(stop({ finish_reason: "stop" }), undefined);
  assert.equal(stop({}), undefined);
});

test("joinContinuation keeps the first part's id, joins the text and sums the usage", () => {
  const usage = (n: number) => ({ input_tokens: n, output_tokens: n, total_tokens: 2 * n });
  const joined = joinContinuation(
    new AIMessage({
      id: "a",
      content: "red, ",
      usage_metadata: usage(1),
      response_metadata: { finish_reason: "length" },
    }),
    new AIMessage({
      id: "b",
      content: "blue.",
      usage_metadata: usage(2),
      response_metadata: { finish_reason: "stop" },
    }),
  );
  assert.equal(joined.id, "a");
  assert.equal(joined.text, "red, blue.");
  assert.deepEqual(joined.usage_metadata, usage(3));
  assert.equal(joined.response_metadata.finish_reason, "stop");
});

test("isEmptyAnswer: no text and no tool calls; whitespace counts as empty", () => {
  assert.equal(isEmptyAnswer(new AIMessage({ content: " \n" })), true);
  assert.equal(isEmptyAnswer(new AIMessage({ content: [{ type: "reasoning", reasoning: "hm" }] as never })), true);
  assert.equal(isEmptyAnswer(new AIMessage({ content: "ok" })), false);
  assert.equal(
    isEmptyAnswer(new AIMessage({ content: "", tool_calls: [{ id: "c", name: "ls", args: {}, type: "tool_call" }] })),
    false,
  );
});

test("an empty answer's retry carries the usage of both calls", async () => {
  const usage = (n: number) => ({ input_tokens: n, output_tokens: n, total_tokens: 2 * n });
  const model = new ScriptedChatModel([
    new AIMessage({ content: "", usage_metadata: usage(3) }),
    new AIMessage({ content: "Here.", usage_metadata: usage(4) }),
  ]);
  const agent = createAgent({ model, middleware: [emptyAnswerMiddleware({ modelName: "m" })] });
  const out = await agent.invoke({ messages: [new HumanMessage("hi")] });
  const answer = out.messages.at(-1) as AIMessage;
  assert.equal(answer.text, "Here.");
  assert.deepEqual(answer.usage_metadata, usage(7));
});
