import assert from "node:assert/strict";
import { test } from "node:test";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { DemoChatModel } from "../model/demo-model.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { conversationText, parseQuestionList, suggestFollowUps } from "./follow-ups.js";

test("parseQuestionList reads the first JSON array past reasoning and fences, keeping trimmed strings", () => {
  assert.deepEqual(parseQuestionList('<think>["no"]</think>\n```json\n["A?", " B?\\n", 3, "", null]\n```'), [
    "A?",
    "B?",
  ]);
  assert.deepEqual(parseQuestionList('Sure! Here: ["One?"] hope it helps'), ["One?"]);
  assert.deepEqual(parseQuestionList("no list here"), []);
  assert.deepEqual(parseQuestionList("[not json]"), []);
  assert.deepEqual(parseQuestionList('{"a": 1}'), []);
});

test("conversationText labels the roles and skips empty turns", () => {
  assert.equal(
    conversationText([
      { role: "user", content: " Hi " },
      { role: "assistant", content: "" },
      { role: "ai", content: "Hello" },
      { role: "tool", content: "x" },
    ]),
    "User: Hi\nAssistant: Hello\ntool: x",
  );
});

test("suggestFollowUps cuts the model's list to the count; the demo model answers marked questions", async () => {
  const model = new ScriptedChatModel([new AIMessage('["1?", "2?", "3?", "4?"]')]);
  assert.deepEqual(await suggestFollowUps(model, [{ role: "user", content: "q" }], 2), ["1?", "2?"]);
  assert.deepEqual(await suggestFollowUps(model, [{ role: "user", content: "  " }], 2), []);
  const demo = await suggestFollowUps(new DemoChatModel(), [{ role: "user", content: "Plan a trip" }], 3);
  assert.equal(demo.length, 3);
  assert.ok(demo.every((question) => question.startsWith("(demo model)")));
  assert.match(demo[0]!, /Plan a trip/);
  // An ordinary conversation with the demo model is not mistaken for a suggestions request.
  const reply = await new DemoChatModel().invoke([new HumanMessage("You suggest follow-up questions")]);
  assert.match(String(reply.content), /\[demo model\]/);
});
