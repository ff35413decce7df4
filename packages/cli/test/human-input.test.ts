/**
 * The user in the loop at the terminal: `deerflow chat` asks `approve? [y/N]` for a tool call under
 * `tool_policies: approval` and resumes the run, `deerflow run` stops with exit 3 and says how to answer,
 * and a clarification form is asked field by field. Unit tests of the prompts, then the built CLI against
 * the fake OpenAI server.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ClarificationField } from "@deerflow/harness";
import { type ChatCompletionRequest, startFakeOpenAIServer } from "@deerflow/harness/testing";
import { askApprovals, askForm, pendingApprovals } from "../src/human-input.js";
import { fakeModelProjects } from "./fake-projects.js";
import { deerflow } from "./run-cli.js";

const projects = fakeModelProjects("df-hitl-", "memory: {enabled: false}\ntitle: {enabled: false}\n");

/** An `ask` that answers from a list and records the prompts. */
function scripted(answers: string[]) {
  const prompts: string[] = [];
  const said: string[] = [];
  return {
    prompts,
    said,
    ask: async (prompt: string) => {
      prompts.push(prompt);
      return answers.shift();
    },
    say: (line: string) => said.push(line),
  };
}

const approval = (id: string, tool: string) => ({
  id,
  value: { kind: "tool_approval", tool_name: tool, tool_call_id: `call-${id}`, args: { path: "/x" } },
});

test("pendingApprovals picks the approval interrupts of a state's tasks", () => {
  const found = pendingApprovals([
    { interrupts: [approval("i1", "ls")] },
    { interrupts: [{ id: "i2", value: "other" }] },
  ]);
  assert.deepEqual(
    found.map((entry) => [entry.interruptId, entry.request.tool_name]),
    [["i1", "ls"]],
  );
  assert.deepEqual(pendingApprovals([]), []);
});

test("askApprovals: y approves, anything else declines with an optional reason; the result is keyed by interrupt id", async () => {
  const io = scripted(["y", "n", "too risky", ""]);
  const approvals = pendingApprovals([
    { interrupts: [approval("i1", "ls"), approval("i2", "bash"), approval("i3", "rm")] },
  ]);
  const decisions = await askApprovals(approvals, io.ask, io.say);
  assert.deepEqual(decisions, {
    i1: { approved: true },
    i2: { approved: false, reason: "too risky" },
    i3: { approved: false },
  });
  assert.match(io.said[0]!, /approval needed: ls \{"path":"\/x"\}/);
  assert.equal(io.prompts[0], "approve? [y/N] ");
  assert.equal(await askApprovals(approvals, scripted(["y"]).ask, () => {}), undefined, "input ended: keep waiting");
});

const form: ClarificationField[] = [
  {
    name: "env",
    label: "Environment",
    type: "select",
    required: true,
    options: [
      { id: "env-option-1", label: "staging", value: "staging" },
      { id: "env-option-2", label: "prod", value: "prod" },
    ],
  },
  {
    name: "regions",
    label: "Regions",
    type: "multi_select",
    required: false,
    options: [
      { id: "r-1", label: "eu", value: "eu" },
      { id: "r-2", label: "us", value: "us" },
    ],
  },
  { name: "notes", label: "Notes", type: "text", required: false },
  { name: "agree", label: "I accept downtime", type: "checkbox", required: true },
];

test("askForm asks field by field, re-asks a required or unknown answer, and sends one line per filled field", async () => {
  const io = scripted(["", "3", "2", "1, us", "", "n", "y"]);
  const answer = await askForm(form, io.ask, io.say);
  assert.equal(answer, "Environment: prod\nRegions: eu, us\nI accept downtime: yes");
  assert.ok(io.said.includes("  This field is required."));
  assert.ok(io.said.some((line) => /"3" is not one of the options/.test(line)));
  assert.ok(io.said.includes("  This one must be ticked (y) to go on."));
  assert.equal(await askForm(form, scripted([]).ask, () => {}), undefined, "input ended");
});

const lsCall = { name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } };
const afterTool = (body: ChatCompletionRequest) => body.messages.at(-1)?.role === "tool";

test("chat asks approve? [y/N]: y runs the call, n refuses it; run stops with exit 3 and says how to answer", async () => {
  const server = await startFakeOpenAIServer({
    script: (body) =>
      afterTool(body)
        ? { content: JSON.stringify(body.messages.at(-1)!.content).includes("declined") ? "Refused." : "Listed." }
        : { tool_calls: [lsCall] },
  });
  try {
    const cwd = projects.withModel(server.url, "tool_policies: {ls: approval}\n");
    const chat = await deerflow(cwd, ["chat", "--no-stream"], { input: "look\ny\nlook again\nn\nnot now\n/exit\n" });
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stdout, /approval needed: ls \{"description":"look","path":"\/mnt\/user-data\/workspace"\}/);
    assert.match(
      chat.stdout,
      /approve\? \[y\/N\] [\s\S]*agent> Listed\.[\s\S]*approve\? \[y\/N\] [\s\S]*agent> Refused\./,
    );
    const refusal = server.requests.at(-1)!.messages.at(-1)!;
    assert.match(JSON.stringify(refusal.content), /declined[\s\S]*Reason: not now/);

    const run = await deerflow(cwd, ["run", "look"]);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /waiting for approval: ls [\s\S]*answer it with: deerflow chat --thread [\w-]+/);
    const thread = /deerflow chat --thread ([\w-]+)/.exec(run.stderr)![1]!;
    const resumed = await deerflow(cwd, ["chat", "--no-stream", "--thread", thread], { input: "y\n/exit\n" });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /approve\? \[y\/N\] [\s\S]*agent> Listed\./);
  } finally {
    await server.close();
  }
});

test("chat asks a clarification form field by field and sends the answers as the reply", async () => {
  const server = await startFakeOpenAIServer({
    script: (body) =>
      body.messages.some(
        (message) => message.role === "user" && JSON.stringify(message.content).includes("Environment:"),
      )
        ? { content: "Deploying." }
        : {
            tool_calls: [
              {
                name: "ask_clarification",
                arguments: {
                  question: "Deployment details?",
                  clarification_type: "missing_info",
                  fields: [
                    { name: "env", label: "Environment", type: "select", options: ["staging", "prod"], required: true },
                    { name: "notes", label: "Notes" },
                  ],
                },
              },
            ],
          },
  });
  try {
    const cwd = projects.withModel(server.url);
    const chat = await deerflow(cwd, ["chat", "--no-stream"], { input: "deploy\n1\nquick one\n/exit\n" });
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stdout, /agent \(question\)> [\s\S]*1\. Environment \(required\) - options: staging \/ prod/);
    assert.match(chat.stdout, /Environment \(required\)> [\s\S]*Notes> [\s\S]*agent> Deploying\./);
    const reply = server.requests
      .at(-1)!
      .messages.filter((message) => message.role === "user")
      .at(-1)!;
    assert.match(JSON.stringify(reply.content), /Environment: staging\\nNotes: quick one/);
  } finally {
    await server.close();
  }
});
