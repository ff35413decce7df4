import assert from "node:assert/strict";
import { test } from "node:test";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { nextDemoStep } from "./demo-script.js";

const TOOLS = ["write_todos", "write_file", "read_file", "present_files"];

/** Plays the script as an agent loop would, answering every tool call with "OK" (or `refuse`'s answer). */
function play(task: string, tools: string[], refuse?: (name: string, count: number) => string | undefined) {
  const messages: (HumanMessage | AIMessage | ToolMessage)[] = [new HumanMessage({ id: "h", content: task })];
  const names: string[] = [];
  for (let turn = 0; turn < 10; turn++) {
    const step = nextDemoStep(messages, tools);
    assert.match(step.content, /\[demo model\]/, "everything the demo model says is labelled");
    const calls = step.toolCalls.map((call, index) => ({
      ...call,
      id: `c${turn}_${index}`,
      type: "tool_call" as const,
    }));
    messages.push(new AIMessage({ id: `a${turn}`, content: step.content, tool_calls: calls }));
    if (calls.length === 0) return { names, answer: step.content, messages };
    for (const call of calls) {
      names.push(call.name);
      messages.push(
        new ToolMessage({
          id: `t${turn}`,
          tool_call_id: call.id,
          name: call.name,
          content:
            refuse?.(call.name, names.filter((name) => name === call.name).length) ??
            (call.name === "read_file" ? String(call.args.path) : "OK"),
        }),
      );
    }
  }
  throw new Error("the demo script did not finish");
}

test("in plan mode it plans, writes, reads back, presents, completes the plan and answers", () => {
  const { names, answer } = play("Explain deer", TOOLS);
  assert.deepEqual(names, ["write_todos", "write_file", "read_file", "present_files", "write_todos"]);
  assert.match(answer, /\/mnt\/user-data\/outputs\/note-explain-deer\.md/);
  assert.match(answer, /not a real LLM/);
});

test("without plan mode it skips the todos", () => {
  assert.deepEqual(play("x", TOOLS.slice(1)).names, ["write_file", "read_file", "present_files"]);
});

test("the note it writes is labelled and goes to outputs", () => {
  const step = nextDemoStep([new HumanMessage("Write about rivers")], ["write_file"]);
  assert.equal(step.toolCalls[0]!.args.path, "/mnt/user-data/outputs/note-write-about-rivers.md");
  assert.match(String(step.toolCalls[0]!.args.content), /demo model/);
});

test("the uploads block the harness puts in front of the task is not part of the task", () => {
  for (const tag of ["current_uploads", "uploaded_files"]) {
    const task = `<${tag}>\n- notes.txt (10 B)\n</${tag}>\n\nWrite about rivers`;
    const step = nextDemoStep([new HumanMessage(task)], ["write_file"]);
    assert.equal(step.toolCalls[0]!.args.path, "/mnt/user-data/outputs/note-write-about-rivers.md", tag);
  }
});

test("a failing tool ends the script with an answer that quotes the error", () => {
  const messages = [
    new HumanMessage({ id: "h", content: "x" }),
    new AIMessage({ id: "a", content: "", tool_calls: [{ id: "c", name: "write_file", args: {}, type: "tool_call" }] }),
    new ToolMessage({ id: "t", tool_call_id: "c", content: "Error: disk full", status: "error" }),
  ];
  const step = nextDemoStep(messages, TOOLS);
  assert.equal(step.toolCalls.length, 0);
  assert.match(step.content, /disk full/);
});

test("each user turn starts the script again", () => {
  const first = play("one", TOOLS.slice(1));
  const messages = [...first.messages, new HumanMessage({ id: "h2", content: "two" })];
  assert.equal(nextDemoStep(messages, TOOLS.slice(1)).toolCalls[0]!.name, "write_file");
});

test("a write refused until the existing note is read (a regenerated turn) is read, then written again", () => {
  const refusal =
    "Error: write_file was refused: /mnt/user-data/outputs/note-x.md already exists and you have not read its current version. Call read_file on it first, then retry.";
  const { names, answer } = play("x", TOOLS, (name, count) =>
    name === "write_file" && count === 1 ? refusal : undefined,
  );
  assert.deepEqual(names, ["write_todos", "write_file", "read_file", "write_file", "present_files", "write_todos"]);
  assert.match(answer, /I wrote a note about your task/);
});
