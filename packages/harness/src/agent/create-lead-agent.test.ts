import assert from "node:assert/strict";
import { test } from "node:test";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { parseConfigText } from "../config/load-config.js";
import { HarnessError } from "../errors.js";
import { createTempHome, startFakeOpenAIServer } from "../testing/index.js";
import { createLeadAgent } from "./create-lead-agent.js";

const configFor = (url: string) =>
  parseConfigText(
    `models:\n  - {name: fake, use: openai, model: fake-model, api_key: x, base_url: '${url}', max_retries: 0}\nmemory: {enabled: false}\ntitle: {enabled: false}\n`,
    {
      source: "config.yaml",
      env: {},
    },
  );

const lookup = tool(async ({ city }: { city: string }) => `It is sunny in ${city}.`, {
  name: "weather",
  description: "Weather for a city",
  schema: z.object({ city: z.string() }),
});

const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

test("a thread survives a new agent instance and the model receives the earlier messages", async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      { tool_calls: [{ name: "weather", arguments: { city: "Oslo" } }] },
      { content: "Sunny in Oslo." },
      { content: "You asked about Oslo." },
    ],
  });
  try {
    const first = await createLeadAgent(configFor(server.url), { home: home.path, tools: [lookup], env: {} });
    const out = await first.invoke(
      { messages: [{ role: "user", content: "Weather in Oslo?" }] },
      { configurable: { thread_id: "t-1" } },
    );
    assert.equal(textOf(out.messages.at(-1)!.content), "Sunny in Oslo.");
    await first.close();

    const second = await createLeadAgent(configFor(server.url), { home: home.path, tools: [lookup], env: {} });
    const again = await second.invoke(
      { messages: [{ role: "user", content: "What did I ask?" }] },
      { configurable: { thread_id: "t-1" } },
    );
    assert.equal(textOf(again.messages.at(-1)!.content), "You asked about Oslo.");
    const sent = server.requests.at(-1)!.messages.map((message) => `${message.role}:${textOf(message.content)}`);
    assert.ok(sent.includes("user:Weather in Oslo?"), `earlier user message missing from ${sent.join(" | ")}`);
    assert.ok(sent.some((line) => line.startsWith("tool:It is sunny in Oslo.")));
    assert.equal(server.rejected.length, 0);
    assert.deepEqual(second.listThreadIds(), ["t-1"]);
    await second.close();
  } finally {
    await server.close();
    home.cleanup();
  }
});

test("threads are isolated from each other", async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({ script: [{ content: "one" }, { content: "two" }] });
  try {
    const agent = await createLeadAgent(configFor(server.url), { home: home.path, env: {} });
    await agent.invoke({ messages: [{ role: "user", content: "secret for A" }] }, { configurable: { thread_id: "a" } });
    await agent.invoke({ messages: [{ role: "user", content: "hello B" }] }, { configurable: { thread_id: "b" } });
    const seenByB = JSON.stringify(server.requests[1]!.messages);
    assert.ok(!seenByB.includes("secret for A"));
    const stateB = await agent.graph.getState({ configurable: { thread_id: "b" } });
    assert.equal((stateB.values as { messages: unknown[] }).messages.length, 2);
    await agent.close();
  } finally {
    await server.close();
    home.cleanup();
  }
});

test("tool arguments that are not valid JSON reach the model as an error and the run goes on", async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      { tool_calls: [{ name: "weather", arguments: '{"city": "Os' }] },
      { tool_calls: [{ name: "nope", arguments: {} }] },
      { tool_calls: [{ name: "weather", arguments: { town: 1 } }] },
      { content: "gave up" },
    ],
  });
  try {
    const agent = await createLeadAgent(configFor(server.url), { home: home.path, tools: [lookup], env: {} });
    const out = await agent.invoke(
      { messages: [{ role: "user", content: "go" }] },
      { configurable: { thread_id: "t" } },
    );
    const toolTexts = out.messages
      .filter((message) => message.getType() === "tool")
      .map((message) => textOf(message.content));
    assert.match(toolTexts[0]!, /not valid JSON/);
    assert.match(toolTexts[1]!, /nope is not a valid tool/);
    assert.match(toolTexts[2]!, /did not match expected schema/);
    assert.equal(textOf(out.messages.at(-1)!.content), "gave up");
    assert.equal(server.rejected.length, 0);
    await agent.close();
  } finally {
    await server.close();
    home.cleanup();
  }
});

test("duplicate tool names fail at construction", async () => {
  const home = createTempHome();
  try {
    await assert.rejects(
      createLeadAgent(parseConfigText("", { source: null, env: {} }), {
        home: home.path,
        tools: [lookup, lookup],
        env: {},
        checkpointer: false,
      }),
      (error: unknown) => error instanceof HarnessError && error.code === "tool_conflict",
    );
  } finally {
    home.cleanup();
  }
});

test("disable_clarification: the lead is offered no ask_clarification and its prompt has no clarification section", async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({ script: [{ content: "A." }, { content: "B." }] });
  try {
    for (const disable of [false, true]) {
      const agent = await createLeadAgent(configFor(server.url), {
        home: home.path,
        env: {},
        checkpointer: false,
        disable_clarification: disable,
      });
      await agent.invoke(
        { messages: [{ role: "user", content: "hi" }] },
        { configurable: { thread_id: `c-${disable}` } },
      );
      await agent.close();
      const request = server.requests.at(-1)!;
      const tools = (request.tools ?? []).map((entry) => entry.function.name);
      const system = textOf(request.messages[0]!.content);
      assert.equal(tools.includes("ask_clarification"), !disable);
      assert.equal(system.includes("<clarification_system>"), !disable);
      assert.equal(system.includes("Clarification is disabled for this run"), disable);
    }
  } finally {
    await server.close();
    home.cleanup();
  }
});
