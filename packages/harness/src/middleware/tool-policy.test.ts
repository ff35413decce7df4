import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, ToolMessage, createAgent, tool } from "langchain";
import { Command, MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { toolErrorsMiddleware } from "./tool-errors.js";
import { policyFor, readDecision, toolPolicyMiddleware, type ToolPolicy } from "./tool-policy.js";

test("policyFor: exact name, then the longest matching glob, else allow", () => {
  const policies: Record<string, ToolPolicy> = { "mcp_*": "approval", mcp_mail_send: "deny", "mcp_mail_*": "allow" };
  assert.equal(policyFor("mcp_mail_send", policies), "deny");
  assert.equal(policyFor("mcp_mail_read", policies), "allow");
  assert.equal(policyFor("mcp_files_ls", policies), "approval");
  assert.equal(policyFor("bash", policies), "allow");
  assert.equal(policyFor("bash", { "*": "approval" }), "approval");
  assert.equal(policyFor("read_file", { "read_?": "deny", "re.d_file": "deny" }), "allow");
  assert.equal(policyFor("toString", {}), "allow");
});

test("readDecision accepts {approved, reason} and booleans, and refuses anything else", () => {
  assert.deepEqual(readDecision({ approved: true }), { approved: true });
  assert.deepEqual(readDecision({ approved: false, reason: " too risky " }), { approved: false, reason: "too risky" });
  assert.deepEqual(readDecision(true), { approved: true });
  // langchain's human-in-the-loop answers, as agent-chat-ui sends them.
  assert.deepEqual(readDecision({ decisions: [{ type: "approve" }] }), { approved: true });
  assert.deepEqual(readDecision({ decisions: [{ type: "reject", message: " elsewhere " }] }), {
    approved: false,
    reason: "elsewhere",
  });
  assert.deepEqual(readDecision({ decisions: [{ type: "reject" }] }), { approved: false });
  assert.equal(
    readDecision({ decisions: [{ type: "edit", edited_action: { name: "bash", args: {} } }] }).approved,
    false,
  );
  const odd = readDecision("yes");
  assert.equal(odd.approved, false);
  assert.match(odd.reason ?? "", /expected \{"approved": true\|false/);
});

function setup(policies: Record<string, ToolPolicy>, script: AIMessage[], canAsk = true) {
  const ran: string[] = [];
  const shell = tool(
    async ({ command }) => {
      ran.push(command);
      return `ran ${command}`;
    },
    { name: "bash", description: "Run a command.", schema: z.object({ command: z.string() }) },
  );
  const model = new ScriptedChatModel(script);
  const agent = createAgent({
    model,
    tools: [shell],
    middleware: [toolErrorsMiddleware(), toolPolicyMiddleware({ policies, canAsk })],
    checkpointer: new MemorySaver(),
  });
  return { agent, model, ran };
}

const callBash = (id: string, command: string) =>
  new AIMessage({
    id: `ai-${id}`,
    content: "",
    tool_calls: [{ id, name: "bash", args: { command }, type: "tool_call" }],
  });

test("deny answers the call with an error result and the run goes on", async () => {
  const { agent, model, ran } = setup({ bash: "deny" }, [
    callBash("b1", "rm -rf /"),
    new AIMessage("I may not run it."),
  ]);
  const result = await agent.invoke({ messages: [new HumanMessage("clean up")] }, { configurable: { thread_id: "d" } });
  assert.deepEqual(ran, []);
  const refusal = result.messages.find((message) => ToolMessage.isInstance(message));
  assert.ok(ToolMessage.isInstance(refusal));
  assert.equal(refusal.status, "error");
  assert.match(refusal.text, /"bash" is not allowed here \(tool_policies: deny\)/);
  assert.equal(result.messages.at(-1)?.text, "I may not run it.");
  assert.deepEqual(model.calls[0]!.toolNames, [], "a denied tool is not offered");
  model.assertDone();
});

test("approval pauses on an interrupt with the tool and its args; approving runs the call", async () => {
  const { agent, model, ran } = setup({ "ba*": "approval" }, [callBash("b1", "ls"), new AIMessage("Listed.")]);
  const config = { configurable: { thread_id: "a" } };
  const paused = await agent.invoke({ messages: [new HumanMessage("list")] }, config);
  assert.deepEqual(ran, []);
  const interrupts = (paused as { __interrupt__?: { value: unknown }[] }).__interrupt__ ?? [];
  assert.deepEqual(
    interrupts.map((entry) => entry.value),
    [
      {
        kind: "tool_approval",
        tool_name: "bash",
        tool_call_id: "b1",
        args: { command: "ls" },
        action_requests: [
          {
            name: "bash",
            args: { command: "ls" },
            description: 'The agent wants to run "bash"; tool_policies asks for your approval.',
          },
        ],
        review_configs: [{ action_name: "bash", allowed_decisions: ["approve", "reject"] }],
      },
    ],
  );
  const state = await agent.graph.getState(config);
  assert.ok(state.next.length > 0, "the thread waits");

  assert.deepEqual(model.calls[0]!.toolNames, ["bash"], "an approval tool is still offered");
  const resumed = await agent.invoke(new Command({ resume: { approved: true } }), config);
  assert.deepEqual(ran, ["ls"]);
  assert.equal(resumed.messages.at(-1)?.text, "Listed.");
  model.assertDone();
});

test("declining refuses the call with the reason, and the model carries on", async () => {
  const { agent, ran } = setup({ bash: "approval" }, [callBash("b1", "rm x"), new AIMessage("Left it alone.")]);
  const config = { configurable: { thread_id: "n" } };
  await agent.invoke({ messages: [new HumanMessage("delete x")] }, config);
  const resumed = await agent.invoke(new Command({ resume: { approved: false, reason: "keep x" } }), config);
  assert.deepEqual(ran, []);
  const refusal = resumed.messages.find((message) => ToolMessage.isInstance(message));
  assert.ok(ToolMessage.isInstance(refusal));
  assert.equal(refusal.status, "error");
  assert.match(refusal.text, /the user declined this call to "bash"; it did not run\. Reason: keep x\./);
  assert.equal(resumed.messages.at(-1)?.text, "Left it alone.");
});

test("where nobody can answer (canAsk false), approval refuses instead of pausing", async () => {
  const { agent, ran } = setup({ bash: "approval" }, [callBash("b1", "ls"), new AIMessage("Reported.")], false);
  const result = await agent.invoke({ messages: [new HumanMessage("list")] }, { configurable: { thread_id: "s" } });
  assert.deepEqual(ran, []);
  assert.equal((result as { __interrupt__?: unknown }).__interrupt__, undefined);
  assert.match(result.messages.find((m) => ToolMessage.isInstance(m))?.text ?? "", /a subagent cannot ask for it/);
});

test("a tool_policies value other than allow, deny or approval is a config error naming the key", async () => {
  const { parseConfigText } = await import("../config/load-config.js");
  assert.throws(
    () => parseConfigText("tool_policies: {bash: maybe}\n", { source: null, env: {} }),
    /tool_policies\.bash[\s\S]*allow, deny or approval/,
  );
  const config = parseConfigText('tool_policies: {bash: approval, "mcp_*": deny}\n', { source: null, env: {} });
  assert.deepEqual(config.tool_policies, { bash: "approval", "mcp_*": "deny" });
});

test("two calls waiting at once: a map of interrupt id to decision answers each", async () => {
  const both = new AIMessage({
    id: "ai-both",
    content: "",
    tool_calls: [
      { id: "b1", name: "bash", args: { command: "ls" }, type: "tool_call" },
      { id: "b2", name: "bash", args: { command: "rm x" }, type: "tool_call" },
    ],
  });
  const { agent, ran } = setup({ bash: "approval" }, [both, new AIMessage("Done.")]);
  const config = { configurable: { thread_id: "two" } };
  await agent.invoke({ messages: [new HumanMessage("go")] }, config);
  const state = await agent.graph.getState(config);
  const waiting = state.tasks.flatMap((task) => task.interrupts);
  assert.equal(waiting.length, 2);
  const idOf = (command: string) =>
    waiting.find((entry) => (entry.value as { args: { command: string } }).args.command === command)!.id!;
  const resumed = await agent.invoke(
    new Command({ resume: { [idOf("ls")]: { approved: true }, [idOf("rm x")]: { approved: false } } }),
    config,
  );
  assert.deepEqual(ran, ["ls"]);
  assert.equal(resumed.messages.at(-1)?.text, "Done.");
});
