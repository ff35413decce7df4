import { test } from "node:test";
import assert from "node:assert/strict";
import { ScriptedChatModel } from "../../testing/scripted-model.js";
import { cleanSummaryText, generateSummary } from "./summary-generation.js";

test("the first candidate's non-blank answer is the summary", async () => {
  const primary = new ScriptedChatModel([{ content: "  ## Goal\nship it  " }]);
  const fallback = new ScriptedChatModel([]);
  assert.deepEqual(await generateSummary([primary, fallback], "prompt"), { summary: "## Goal\nship it" });
  assert.equal(fallback.callCount, 0);
  assert.equal(primary.calls[0]!.messages[0]!.text, "prompt");
});

test("an error or a blank answer falls through to the next candidate", async () => {
  const failing = new ScriptedChatModel([new Error("HTTP 500")], { name: "summary-model" });
  const blank = new ScriptedChatModel([{ content: "   " }]);
  const run = new ScriptedChatModel([{ content: "from the run model" }]);
  assert.deepEqual(await generateSummary([failing, blank, run], "p"), { summary: "from the run model" });
});

test("when every candidate fails, the outcome lists why", async () => {
  const outcome = await generateSummary(
    [new ScriptedChatModel([new Error("quota exceeded")]), new ScriptedChatModel([{ content: "" }])],
    "p",
  );
  assert.ok("failures" in outcome);
  assert.match(outcome.failures[0]!, /candidate 1 .*quota exceeded/);
  assert.match(outcome.failures[1]!, /candidate 2 .*blank summary/);
});

test("a candidate that hangs is abandoned after the timeout", async () => {
  const hanging = new ScriptedChatModel([() => new Promise(() => {})]);
  const outcome = await generateSummary([hanging], "p", { timeoutMs: 50 });
  assert.ok("failures" in outcome);
  assert.match(outcome.failures[0]!, /timed out after 50 ms/);
});

test("the same model listed twice is asked once", async () => {
  const model = new ScriptedChatModel([new Error("down")]);
  await generateSummary([model, model], "p");
  assert.equal(model.callCount, 1);
});

test("reasoning blocks are removed from the summary text", () => {
  assert.equal(cleanSummaryText("<think>let me plan</think>\n## Goal\nx"), "## Goal\nx");
  assert.equal(cleanSummaryText("<think>only thoughts</think>"), "");
});
