import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, ToolMessage } from "langchain";
import { type TaskEvent, fanOut, summarizeStep } from "./events.js";

test("summarizeStep keeps AI text and tool calls short and serializable", () => {
  const summary = summarizeStep(
    new AIMessage({
      id: "a1",
      content: "x".repeat(600),
      tool_calls: [
        {
          id: "c1",
          name: "write_file",
          args: { path: "/mnt/user-data/outputs/a.md", content: "y".repeat(500) },
          type: "tool_call",
        },
      ],
    }),
  );
  assert.equal(summary?.role, "ai");
  assert.equal(summary?.text.length, 501);
  assert.equal(summary?.tool_calls?.[0]?.name, "write_file");
  assert.equal(summary?.tool_calls?.[0].args.length, 201);
  assert.deepEqual(JSON.parse(JSON.stringify(summary)), summary, "JSON round trip is lossless");
});

test("summarizeStep describes tool results and ignores other messages", () => {
  assert.deepEqual(summarizeStep(new ToolMessage({ id: "t1", tool_call_id: "c1", name: "ls", content: "a.md" })), {
    role: "tool",
    type: "tool",
    id: "t1",
    text: "a.md",
    content: "a.md",
    name: "ls",
    status: "success",
  });
  assert.equal(summarizeStep(new HumanMessage("hi")), undefined);
});

test("fanOut delivers to every sink even when one throws", () => {
  const got: TaskEvent[] = [];
  const emit = fanOut(
    () => {
      throw new Error("stream closed");
    },
    undefined,
    (event) => got.push(event),
  );
  emit({ type: "task_cancelled", task_id: "c1" });
  assert.deepEqual(got, [{ type: "task_cancelled", task_id: "c1" }]);
});
