/**
 * createHarness: one set of services, a cached graph per option set, and subagents that summarize with
 * the configured summary model (they used to ignore `summarization.model_name`).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createHarness } from "../../src/agent/harness.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { type ChatCompletionRequest, createTempHome, startFakeOpenAIServer } from "../../src/testing/index.js";

const text = (body: ChatCompletionRequest) => JSON.stringify(body.messages.map((message) => message.content));

test("subagents summarize with summarization.model_name, the lead keeps its own model", async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({
    script: (body) => {
      const all = text(body);
      if (all.includes("<new_messages>")) return { content: "Summary of the subagent's work." };
      if (all.includes("You are a subagent")) {
        const toolResults = body.messages.filter((message) => message.role === "tool").length;
        if (toolResults < 3)
          return { tool_calls: [{ name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } }] };
        return { content: "Subagent done." };
      }
      if (body.messages.some((message) => message.role === "tool")) return { content: "Lead done." };
      return {
        tool_calls: [
          {
            name: "task",
            arguments: {
              description: "Look around",
              prompt: "List the workspace three times",
              subagent_type: "general-purpose",
            },
          },
        ],
      };
    },
  });
  const config = parseConfigText(
    [
      "models:",
      `  - {name: main, use: openai, model: main-model, api_key: x, base_url: '${server.url}', max_retries: 0}`,
      `  - {name: summ, use: openai, model: summary-model, api_key: x, base_url: '${server.url}', max_retries: 0}`,
      "sandbox: {use: local}",
      "memory: {enabled: false}",
      "title: {enabled: false}",
      "summarization: {model_name: summ, trigger: {type: messages, value: 5}, keep: {type: messages, value: 2}}",
    ].join("\n"),
    { source: null, env: {} },
  );
  const harness = await createHarness(config, { home: home.path, env: {}, onWarning: () => {} });
  try {
    const agent = harness.agent({ subagent_enabled: true });
    await agent.invoke(
      { messages: [{ role: "user", content: "Delegate a look around" }] },
      { configurable: { thread_id: "h1" } },
    );
    const summaries = server.requests.filter((body) => text(body).includes("<new_messages>"));
    assert.ok(summaries.length > 0, "the subagent's history was summarized");
    assert.deepEqual([...new Set(summaries.map((body) => body.model))], ["summary-model"]);
    const others = server.requests.filter((body) => !text(body).includes("<new_messages>"));
    assert.deepEqual([...new Set(others.map((body) => body.model))], ["main-model"]);
  } finally {
    await harness.close();
    await server.close();
    home.cleanup();
  }
});

test("agent() returns the same graph for the same options and another one for other options", async () => {
  const home = createTempHome();
  const config = parseConfigText("memory: {enabled: false}\n", { source: null, env: {} });
  const harness = await createHarness(config, {
    home: home.path,
    env: {},
    checkpointer: false,
    onWarning: () => {},
    agentCacheSize: 2,
  });
  try {
    const plain = harness.agent({});
    assert.equal(harness.agent({}), plain);
    const plan = harness.agent({ is_plan_mode: true });
    assert.notEqual(plan, plain);
    assert.ok(plan.deerflow.middlewareNames.length > plain.deerflow.middlewareNames.length);
    assert.throws(() => harness.agent({ model_name: "nope" }), /Model "nope" is not configured/);
    assert.throws(() => harness.agent({ agent_name: "../x" }), /Agent name/);
    harness.agent({ subagent_enabled: true });
    assert.notEqual(harness.agent({}), plain, "the least recently used graph left the cache of two");
  } finally {
    await harness.close();
    home.cleanup();
  }
});
