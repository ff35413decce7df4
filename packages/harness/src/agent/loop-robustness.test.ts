import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { parseConfigText } from "../config/load-config.js";
import { createTempHome, startFakeOpenAIServer } from "../testing/index.js";
import { createLeadAgent } from "./create-lead-agent.js";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../test/fixtures");
const configFor = (url: string, extra = "") =>
  parseConfigText(
    `sandbox: {use: local}\nmodels:\n  - {name: fake, use: openai, model: fake-model, api_key: x, base_url: '${url}', max_retries: 0}\nmemory: {enabled: false}\ntitle: {enabled: false}\n${extra}`,
    { source: path.join(fixtures, "config.yaml"), env: {} },
  );
const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));
const weather = tool(async ({ city }: { city: string }) => `It is sunny in ${city}.`, {
  name: "weather",
  description: "Weather for a city",
  schema: z.object({ city: z.string() }),
});
const broken = tool(
  async () => {
    throw new Error("database is locked");
  },
  { name: "lookup_order", description: "Looks up an order", schema: z.object({ id: z.string() }) },
);

test("a code tool and a config tool that throw become error results naming the tool; the run goes on", async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      { tool_calls: [{ name: "lookup_order", arguments: { id: "42" } }, { name: "explode", arguments: {} }] },
      { content: "Both tools failed; sorry." },
    ],
  });
  try {
    const config = configFor(server.url, "tools: [{name: explode, use: './config-tools.mjs:explode'}]\n");
    const agent = await createLeadAgent(config, { home: home.path, tools: [broken], env: {} });
    const out = await agent.invoke({ messages: [{ role: "user", content: "order 42?" }] }, { configurable: { thread_id: "t" } });
    assert.equal(textOf(out.messages.at(-1)!.content), "Both tools failed; sorry.");
    const sent = server.requests[1]!.messages.filter((message) => message.role === "tool").map((message) => textOf(message.content));
    assert.equal(sent.length, 2);
    assert.match(sent[0]!, /lookup_order/);
    assert.match(sent[0]!, /database is locked/);
    assert.match(sent[1]!, /explode/);
    assert.match(sent[1]!, /fuse blown/);
    assert.equal(server.rejected.length, 0);
    await agent.close();
  } finally {
    await server.close();
    home.cleanup();
  }
});

test("tool calls with empty ids keep their real results in every later request", async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      { tool_calls: [{ id: "", name: "weather", arguments: { city: "Oslo" } }, { id: "", name: "weather", arguments: { city: "Rome" } }] },
      { content: "Sunny in both." },
      { tool_calls: [{ id: "", name: "weather", arguments: { city: "Lima" } }] },
      { content: "Sunny in Lima too." },
    ],
  });
  try {
    const agent = await createLeadAgent(configFor(server.url), { home: home.path, tools: [weather], env: {} });
    await agent.invoke({ messages: [{ role: "user", content: "Oslo and Rome?" }] }, { configurable: { thread_id: "t" } });
    const out = await agent.invoke({ messages: [{ role: "user", content: "And Lima?" }] }, { configurable: { thread_id: "t" } });
    assert.equal(textOf(out.messages.at(-1)!.content), "Sunny in Lima too.");
    const last = server.requests.at(-1)!.messages;
    const results = last.filter((message) => message.role === "tool").map((message) => textOf(message.content));
    assert.deepEqual(results, ["It is sunny in Oslo.", "It is sunny in Rome.", "It is sunny in Lima."]);
    const callIds = last.flatMap((message) => ((message as { tool_calls?: { id: string }[] }).tool_calls ?? []).map((call) => call.id));
    assert.equal(new Set(callIds).size, 3, `ids must be distinct: ${callIds.join(", ")}`);
    assert.ok(callIds.every(Boolean));
    assert.equal(server.rejected.length, 0);
    await agent.close();
  } finally {
    await server.close();
    home.cleanup();
  }
});
