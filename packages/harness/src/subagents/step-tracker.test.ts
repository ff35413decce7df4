import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "langchain";
import { StepTracker } from "./step-tracker.js";

test("each AI or tool message is reported once, numbered from 1, even when chunks repeat or shrink", () => {
  const steps: [number, string][] = [];
  const tracker = new StepTracker((index, summary) => steps.push([index, summary.text]));
  const system = new SystemMessage({ id: "s", content: "prompt" });
  const human = new HumanMessage({ id: "h", content: "job" });
  const ai1 = new AIMessage({
    id: "a1",
    content: "step one",
    usage_metadata: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
  });
  const tool1 = new ToolMessage({ id: "t1", tool_call_id: "c", content: "result" });
  const ai2 = new AIMessage({
    id: "a2",
    content: "",
    usage_metadata: { input_tokens: 4, output_tokens: 1, total_tokens: 5 },
  });

  tracker.observe({ messages: [system, human] });
  tracker.observe({ messages: [system, human, ai1] });
  tracker.observe({ messages: [system, human, ai1, tool1] });
  tracker.observe({ messages: [tool1, ai2] }); // history compacted
  tracker.observe({ messages: [tool1, ai2] });

  assert.deepEqual(steps, [
    [1, "step one"],
    [2, "result"],
    [3, ""],
  ]);
  assert.equal(tracker.partialAnswer, "step one");
  assert.deepEqual(tracker.tokenUsage, { input_tokens: 7, output_tokens: 3, total_tokens: 10 });
  assert.equal(tracker.finalAnswer(), "step one", "the final AI message is empty: the latest AI text");
});

test("finalAnswer prefers the last AI text, then the last message, then a placeholder", () => {
  const tracker = new StepTracker(() => {});
  assert.equal(tracker.finalAnswer(), "No response generated.");
  assert.equal(tracker.tokenUsage, undefined);
  tracker.observe({
    messages: [
      new HumanMessage({ id: "h", content: "job" }),
      new ToolMessage({ id: "t0", tool_call_id: "c", content: "tool said" }),
    ],
  });
  assert.equal(tracker.finalAnswer(), "tool said");
  tracker.observe({
    messages: [
      new AIMessage({ id: "a", content: "first" }),
      new ToolMessage({ id: "t", tool_call_id: "c", content: "r" }),
      new AIMessage({ id: "b", content: "final" }),
    ],
  });
  assert.equal(tracker.finalAnswer(), "final");
});
