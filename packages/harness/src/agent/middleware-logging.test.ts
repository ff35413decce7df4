import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { parseConfigText } from "../config/load-config.js";
import { createLogger, type LogLevel } from "../logger.js";
import { createTempHome, startFakeOpenAIServer } from "../testing/index.js";
import { createLeadAgent } from "./create-lead-agent.js";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../test/fixtures");
const configFor = (url: string) =>
  parseConfigText(
    `sandbox: {use: local}\nmodels:\n  - {name: fake, use: openai, model: fake-model, api_key: x, base_url: '${url}', max_retries: 0}\n` +
      "memory: {enabled: false}\ntitle: {enabled: false}\nloop_detection: {warn_threshold: 2, hard_limit: 5}\n",
    { source: path.join(fixtures, "config.yaml"), env: {} },
  );
const weather = tool(async ({ city }: { city: string }) => `It is sunny in ${city}.`, {
  name: "weather",
  description: "Weather",
  schema: z.object({ city: z.string() }),
});
const broken = tool(
  async () => {
    throw new Error("database is locked");
  },
  { name: "lookup_order", description: "Looks up an order", schema: z.object({ id: z.string() }) },
);

/** Runs one scripted turn (an invalid call, a throwing tool, a sandbox tool, a repeated call) and returns the log lines. */
async function runLogged(level: LogLevel): Promise<string[]> {
  const home = createTempHome();
  const same = { tool_calls: [{ name: "weather", arguments: { city: "Oslo" } }] };
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      { tool_calls: [{ name: "weather", arguments: '{"city": "Os' }] },
      { tool_calls: [{ name: "lookup_order", arguments: { id: "42" } }] },
      { tool_calls: [{ name: "ls", arguments: { description: "look", path: "/mnt/user-data" } }] },
      same,
      same,
      { content: "Sunny in Oslo." },
    ],
  });
  const lines: string[] = [];
  try {
    const logger = createLogger({ level, write: (line) => lines.push(line) });
    const agent = await createLeadAgent(configFor(server.url), {
      home: home.path,
      tools: [weather, broken],
      env: {},
      logger,
    });
    const out = await agent.invoke(
      { messages: [{ role: "user", content: "weather and order?" }] },
      { configurable: { thread_id: "log" } },
    );
    assert.equal(out.messages.at(-1)!.content, "Sunny in Oslo.");
    await agent.close();
  } finally {
    await server.close();
    home.cleanup();
  }
  return lines;
}

test("at log_level debug, middlewares log their key actions with their name as scope", async () => {
  const lines = await runLogged("debug");
  const has = (pattern: RegExp) =>
    assert.ok(
      lines.some((line) => pattern.test(line)),
      `expected ${pattern} in:\n${lines.join("\n")}`,
    );
  has(/^\[deerflow\] info tool-call-repair: answered an invalid call to "weather"/);
  has(/^\[deerflow\] warn tool-errors: tool "lookup_order" threw; .*database is locked/);
  has(/^\[deerflow\] info loop-detection: the same tool call was sent 2 times in a row; warning the model/);
  has(/^\[deerflow\] debug sandbox: acquired sandbox /);
  assert.ok(!lines.some((line) => /context-guard/.test(line)), "nothing was cut, so context-guard says nothing");
});

test("at log_level warn, the debug and info lines of middlewares are not written", async () => {
  const lines = await runLogged("warn");
  assert.ok(
    lines.some((line) => /^\[deerflow\] warn tool-errors: tool "lookup_order" threw/.test(line)),
    lines.join("\n"),
  );
  assert.deepEqual(
    lines.filter((line) => /^\[deerflow\] (debug|info) /.test(line)),
    [],
  );
});
