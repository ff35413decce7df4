/**
 * The user in the loop through `deerflow serve`, with the official SDK. `tool_policies: approval`: the
 * stream carries the `__interrupt__` with the tool and its arguments, the thread waits as `interrupted`
 * with the interrupt in its state, and `command: {resume}` runs or refuses the call. And the
 * `disable_clarification` run option, for runs nobody can answer.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { collect, startTestServer } from "./helpers.js";

type Values = { messages: { type: string; content: string; status?: string }[] };

const say = (text: string) => ({ messages: [{ type: "human", content: text }] });
const listCall = { name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } };

async function approvalServer() {
  return startTestServer({
    yaml: "tool_policies: {ls: approval}",
    script: (body) =>
      body.messages.some((message) => message.role === "tool") ? { content: "done" } : { tool_calls: [listCall] },
  });
}

test("an approval interrupt streams as __interrupt__; resuming with approved: true runs the call", async () => {
  const t = await approvalServer();
  try {
    const thread = await t.client.threads.create();
    const parts = await collect(
      t.client.runs.stream(thread.thread_id, "lead_agent", { input: say("look"), streamMode: ["values", "updates"] }),
    );
    const interrupted = parts.find(
      (part) => part.event === "values" && (part.data as Record<string, unknown>).__interrupt__ !== undefined,
    );
    assert.ok(interrupted, "the stream carries the interrupt");
    const value = (interrupted.data as { __interrupt__: { value: unknown; id: string }[] }).__interrupt__[0]!.value;
    assert.deepEqual(value, {
      kind: "tool_approval",
      tool_name: "ls",
      tool_call_id: (value as { tool_call_id: string }).tool_call_id,
      args: listCall.arguments,
      // The same request in langchain's human-in-the-loop shape, which agent-chat-ui renders and answers.
      action_requests: [
        {
          name: "ls",
          args: listCall.arguments,
          description: 'The agent wants to run "ls"; tool_policies asks for your approval.',
        },
      ],
      review_configs: [{ action_name: "ls", allowed_decisions: ["approve", "reject"] }],
    });
    assert.equal((await t.client.threads.get(thread.thread_id)).status, "interrupted");
    const state = await t.client.threads.getState(thread.thread_id);
    assert.deepEqual(
      state.tasks.flatMap((task) => task.interrupts.map((entry) => (entry.value as { tool_name: string }).tool_name)),
      ["ls"],
    );

    const resumed = await collect(
      t.client.runs.stream(thread.thread_id, "lead_agent", { command: { resume: { approved: true } } }),
    );
    const last = resumed.filter((part) => part.event === "values").at(-1)!.data as Values;
    const result = last.messages.find((message) => message.type === "tool")!;
    assert.notEqual(result.status, "error");
    assert.doesNotMatch(result.content, /declined/);
    assert.equal(last.messages.at(-1)!.content, "done");
    assert.equal((await t.client.threads.get(thread.thread_id)).status, "idle");
  } finally {
    await t.close();
  }
});

test("resuming with approved: false refuses the call with the reason; the run finishes", async () => {
  const t = await approvalServer();
  try {
    const thread = await t.client.threads.create();
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("look") });
    const last = (await t.client.runs.wait(thread.thread_id, "lead_agent", {
      command: { resume: { approved: false, reason: "not now" } },
    })) as Values;
    const result = last.messages.find((message) => message.type === "tool")!;
    assert.equal(result.status, "error");
    assert.match(result.content, /the user declined this call to "ls"; it did not run\. Reason: not now\./);
    assert.equal(last.messages.at(-1)!.content, "done");
  } finally {
    await t.close();
  }
});

test("agent-chat-ui's answer, resume {decisions: [{type: reject, message}]}, refuses the call with its message", async () => {
  const t = await approvalServer();
  try {
    const thread = await t.client.threads.create();
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("look") });
    // What agent-chat-ui's approval card sends (src/components/thread/agent-inbox, `resumeRun`).
    const last = (await t.client.runs.wait(thread.thread_id, "lead_agent", {
      command: { resume: { decisions: [{ type: "reject", message: "use the other folder" }] } },
    })) as Values;
    const result = last.messages.find((message) => message.type === "tool")!;
    assert.equal(result.status, "error");
    assert.match(result.content, /declined this call to "ls"; it did not run\. Reason: use the other folder\./);
    assert.equal(last.messages.at(-1)!.content, "done");
  } finally {
    await t.close();
  }
});

test("disable_clarification in the run's context: the model is not offered ask_clarification", async () => {
  const t = await startTestServer();
  try {
    const thread = await t.client.threads.create();
    await t.client.runs.wait(thread.thread_id, "lead_agent", { input: say("hi") });
    await t.client.runs.wait(thread.thread_id, "lead_agent", {
      input: say("again"),
      context: { disable_clarification: true },
    });
    const offered = t.fake.requests.map((request) => (request.tools ?? []).map((entry) => entry.function.name));
    assert.deepEqual(
      offered.map((names) => names.includes("ask_clarification")),
      [true, false],
    );
    const wrong = await fetch(`${t.url}/threads/${thread.thread_id}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "lead_agent", input: say("x"), context: { disable_clarification: "yes" } }),
    });
    assert.equal(wrong.status, 422);
    assert.match(((await wrong.json()) as { detail: string }).detail, /disable_clarification/);
  } finally {
    await t.close();
  }
});
