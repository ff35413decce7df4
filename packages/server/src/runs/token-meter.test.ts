import assert from "node:assert/strict";
import { test } from "node:test";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { TokenMeter } from "./token-meter.js";

test("the meter adds input + output of each model call and the subagent totals of task results", () => {
  const meter = new TokenMeter();
  const call = (input: number, output: number) => ({
    generations: [
      [
        {
          text: "",
          message: new AIMessage({
            content: "",
            usage_metadata: { input_tokens: input, output_tokens: output, total_tokens: input + output },
          }),
        },
      ],
    ],
  });
  meter.handleLLMEnd(call(100, 20));
  meter.handleLLMEnd(call(7, 3));
  meter.handleLLMEnd({ generations: [[{ text: "no usage reported" }]] });
  meter.handleToolEnd(
    new ToolMessage({
      tool_call_id: "call_1",
      content: "Task Succeeded. Result: done",
      additional_kwargs: { subagent_token_usage: { input_tokens: 500, output_tokens: 50, total_tokens: 550 } },
    }),
  );
  meter.handleToolEnd(new ToolMessage({ tool_call_id: "call_2", content: "plain tool" }));
  meter.handleToolEnd("a string result");
  assert.equal(meter.tokens, 120 + 10 + 550);
});
