/**
 * Delegation through the fully wired lead agent: the subagent shares the lead's sandbox and files,
 * its own messages stay out of the lead's thread, and the result lands in the delegation ledger.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createLeadAgent } from "../../src/agent/create-lead-agent.js";
import { parseConfigText } from "../../src/config/load-config.js";
import type { AppConfig } from "../../src/config/schema.js";
import { threadPaths } from "../../src/sandbox/virtual-paths.js";
import { createTempHome, ScriptedChatModel } from "../../src/testing/index.js";

/** A lead agent with subagents on, over `home`, driven by `model`. */
function delegatingAgent(config: AppConfig, home: string, model: ScriptedChatModel) {
  return createLeadAgent(config, { home, env: {}, chatModel: model, subagent_enabled: true, onWarning: () => {} });
}

test("a task call runs a subagent that writes into the lead thread's outputs", async () => {
  const home = createTempHome();
  const model = new ScriptedChatModel([
    {
      tool_calls: [
        {
          name: "task",
          args: {
            description: "Write the file",
            prompt: "Write 'from subagent' to /mnt/user-data/outputs/sub.txt",
            subagent_type: "general-purpose",
          },
        },
      ],
    },
    {
      tool_calls: [
        {
          name: "write_file",
          args: { description: "write", path: "/mnt/user-data/outputs/sub.txt", content: "from subagent" },
        },
      ],
    },
    { content: "I wrote /mnt/user-data/outputs/sub.txt." },
    { content: "The subagent wrote the file." },
  ]);
  const config = parseConfigText("sandbox: {use: local}\nmemory: {enabled: false}\n", { source: null, env: {} });
  const agent = await delegatingAgent(config, home.path, model);
  try {
    const events: string[] = [];
    const stream = await agent.stream(
      { messages: [{ role: "user", content: "delegate it" }] },
      { configurable: { thread_id: "lead" }, streamMode: ["custom"] },
    );
    for await (const [, event] of stream as AsyncIterable<[string, { type: string }]>) events.push(event.type);
    assert.deepEqual([events[0], events.at(-1)], ["task_started", "task_completed"]);

    assert.equal(
      readFileSync(path.join(threadPaths(home.path, "lead").outputs_path, "sub.txt"), "utf8"),
      "from subagent",
    );
    const state = await agent.graph.getState({ configurable: { thread_id: "lead" } });
    const values = state.values as {
      messages: { getType(): string; name?: string }[];
      delegations: { status: string; result_brief?: string }[];
    };
    assert.deepEqual(
      values.messages.map((message) => message.getType()),
      ["human", "ai", "tool", "ai"],
      "the subagent's own messages stay out of the lead's thread",
    );
    assert.equal(values.delegations.length, 1);
    assert.equal(values.delegations[0]!.status, "completed");
    assert.match(values.delegations[0]!.result_brief ?? "", /wrote \/mnt\/user-data\/outputs\/sub\.txt/);
    model.assertDone();
  } finally {
    await agent.close();
    home.cleanup();
  }
});

test("after a forced summarization, the next request still lists both delegations as completed", async () => {
  const home = createTempHome();
  const text = (messages: { content: unknown }[]) => JSON.stringify(messages.map((message) => message.content));
  let leadTurn = 0;
  const model = new ScriptedChatModel(
    [
      (messages) => {
        const all = text(messages);
        if (all.includes("You are a subagent"))
          return { content: `Findings for ${all.includes("provider A") ? "A" : "B"}: cheap and fast.` };
        if (all.includes("<new_messages>"))
          return { content: "The user compared providers A and B through two subagents." };
        leadTurn += 1;
        if (leadTurn === 1) {
          return {
            tool_calls: [
              {
                name: "task",
                args: { description: "Research A", prompt: "Research provider A", subagent_type: "general-purpose" },
              },
              {
                name: "task",
                args: { description: "Research B", prompt: "Research provider B", subagent_type: "general-purpose" },
              },
            ],
          };
        }
        return { content: `Answer ${leadTurn}.` };
      },
    ],
    { loop: true },
  );
  const config = parseConfigText(
    "sandbox: {use: local}\nmemory: {enabled: false}\nsummarization: {trigger: {type: messages, value: 6}, keep: {type: messages, value: 2}}\n",
    {
      source: null,
      env: {},
    },
  );
  const agent = await delegatingAgent(config, home.path, model);
  try {
    const thread = { configurable: { thread_id: "compacted" } };
    await agent.invoke({ messages: [{ role: "user", content: "Compare providers A and B" }] }, thread);
    await agent.invoke({ messages: [{ role: "user", content: "Anything else?" }] }, thread);
    await agent.invoke({ messages: [{ role: "user", content: "And now?" }] }, thread);

    const state = await agent.graph.getState(thread);
    const values = state.values as { messages: { getType(): string; name?: string }[]; summary_text?: string };
    assert.ok(values.summary_text, "summarization ran");
    assert.ok(!values.messages.some((message) => message.name === "task"), "the task results were compacted away");
    const last = model.calls
      .at(-1)!
      .messages.map((message) =>
        typeof message.content === "string" ? message.content : JSON.stringify(message.content),
      )
      .join("\n");
    assert.match(last, /\[completed\] Research A \(via general-purpose; completed result; do NOT delegate again/);
    assert.match(last, /\[completed\] Research B \(via general-purpose; completed result; do NOT delegate again/);
  } finally {
    await agent.close();
    home.cleanup();
  }
});

test("a subagent over its kind's token budget stops and the lead reads token_capped", async () => {
  const home = createTempHome();
  const usage = { input_tokens: 1500, output_tokens: 100, total_tokens: 1600 };
  const model = new ScriptedChatModel([
    {
      tool_calls: [
        { name: "task", args: { description: "Look", prompt: "List the files", subagent_type: "general-purpose" } },
      ],
    },
    // The subagent's first response already passes its 1000-token budget: its ls call is never run.
    {
      content: "Listing the outputs.",
      tool_calls: [{ name: "ls", args: { description: "ls", path: "/mnt/user-data" } }],
      usage_metadata: usage,
    },
    { content: "The subagent ran out of budget." },
  ]);
  const config = parseConfigText(
    "sandbox: {use: local}\nmemory: {enabled: false}\nsubagents: {agents: {general-purpose: {token_budget: {max_tokens: 1000}}}}\n",
    { source: null, env: {} },
  );
  const agent = await delegatingAgent(config, home.path, model);
  try {
    await agent.invoke(
      { messages: [{ role: "user", content: "delegate it" }] },
      { configurable: { thread_id: "lead" } },
    );
    const state = await agent.graph.getState({ configurable: { thread_id: "lead" } });
    const values = state.values as {
      messages: { getType(): string; text: string; additional_kwargs: Record<string, unknown> }[];
      delegations: { status: string; stop_reason?: string }[];
    };
    const result = values.messages.find((message) => message.getType() === "tool")!;
    assert.match(result.text, /^Task Succeeded \(capped: token budget\)\. Result: Listing the outputs\./);
    assert.match(result.text, /subagents\.token_budget\.max_tokens/);
    assert.equal(result.additional_kwargs.subagent_stop_reason, "token_capped");
    assert.deepEqual(
      values.delegations.map((entry) => [entry.status, entry.stop_reason]),
      [["completed", "token_capped"]],
    );
    model.assertDone();
  } finally {
    await agent.close();
    home.cleanup();
  }
});

test("tool_policies reach subagents: an approval tool is refused there instead of pausing the run", async () => {
  const home = createTempHome();
  const write = { description: "write", path: "/mnt/user-data/outputs/sub.txt", content: "x" };
  const model = new ScriptedChatModel([
    {
      tool_calls: [
        {
          name: "task",
          args: { description: "Write", prompt: "Write the file", subagent_type: "general-purpose" },
        },
      ],
    },
    { tool_calls: [{ name: "write_file", args: write }] },
    { content: "write_file needs approval; not written." },
    { content: "The subagent could not write it." },
  ]);
  const config = parseConfigText(
    "sandbox: {use: local}\nmemory: {enabled: false}\ntool_policies: {write_file: approval}\n",
    {
      source: null,
      env: {},
    },
  );
  const agent = await delegatingAgent(config, home.path, model);
  try {
    const result = await agent.invoke(
      { messages: [{ role: "user", content: "delegate it" }] },
      { configurable: { thread_id: "lead" } },
    );
    assert.equal((result as { __interrupt__?: unknown }).__interrupt__, undefined);
    assert.match(model.calls[2]!.messages.at(-1)!.text, /needs the user's approval[\s\S]*a subagent cannot ask for it/);
    assert.equal(result.messages.at(-1)?.text, "The subagent could not write it.");
    model.assertDone();
  } finally {
    await agent.close();
    home.cleanup();
  }
});

test("with subagents on, the lead gets background_tasks, task's run_in_background and the background-tasks middleware", async () => {
  const home = createTempHome();
  const config = parseConfigText("sandbox: {use: local}\nmemory: {enabled: false}\n", { source: null, env: {} });
  const agent = await delegatingAgent(config, home.path, new ScriptedChatModel([]));
  try {
    assert.ok(agent.deerflow.toolNames.includes("background_tasks"));
    assert.ok(agent.deerflow.middlewareNames.includes("background-tasks"));
    assert.match(agent.deerflow.systemPrompt, /run_in_background: true/);
  } finally {
    await agent.close();
    home.cleanup();
  }
});
