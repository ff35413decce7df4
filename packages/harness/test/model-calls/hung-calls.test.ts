import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createLeadAgent } from "../../src/agent/create-lead-agent.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { createTempHome, startFakeOpenAIServer } from "../../src/testing/index.js";

const configFor = (url: string, extra: string) =>
  parseConfigText(
    `models:\n  - {name: fake, use: openai, model: fake-model, api_key: x, base_url: '${url}', max_retries: 0}\nsandbox: {use: local}\n${extra}`,
    {
      source: "config.yaml",
      env: {},
    },
  );

test("a title call that hangs does not hold back the answer: the fallback title is used at the title deadline", {
  timeout: 30_000,
}, async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({ script: [{ content: "Here is the answer." }, { hang: {} }] });
  const warnings: string[] = [];
  try {
    const agent = await createLeadAgent(
      configFor(server.url, "memory: {enabled: false}\nllm_call: {title_timeout_seconds: 0.5}\n"),
      {
        home: home.path,
        env: {},
        onWarning: (w) => warnings.push(w),
      },
    );
    const out = await agent.invoke(
      { messages: [{ role: "user", content: "Explain hung requests" }] },
      { configurable: { thread_id: "t" } },
    );
    await agent.close();
    assert.equal(out.messages.at(-1)!.text, "Here is the answer.");
    assert.equal(out.title, "Explain hung requests");
    assert.equal(server.requests.length, 2, "the title call was made");
    assert.ok(
      warnings.some((w) => /did not finish its answer within 0\.5 s/.test(w)),
      warnings.join("\n"),
    );
  } finally {
    await server.close();
    home.cleanup();
  }
});

test("a memory update that hangs gives up at the memory deadline and stays queued for a later attempt", {
  timeout: 30_000,
}, async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({ script: [{ content: "Noted, you like TypeScript." }, { hang: {} }] });
  const warnings: string[] = [];
  try {
    const agent = await createLeadAgent(
      configFor(
        server.url,
        "title: {enabled: false}\nmemory: {debounce_seconds: 0}\nllm_call: {memory_timeout_seconds: 0.5}\n",
      ),
      {
        home: home.path,
        env: {},
        onWarning: (w) => warnings.push(w),
      },
    );
    await agent.invoke(
      { messages: [{ role: "user", content: "I prefer TypeScript." }] },
      { configurable: { thread_id: "t" } },
    );
    await agent.harness.memory()?.flush(); // waits for the update, as the CLI does (briefly) before exiting
    await agent.close();
    assert.equal(server.requests.length, 2, "the memory call was made");
    assert.ok(
      warnings.some((w) =>
        /Memory update for thread t skipped for now: .*did not finish its answer within 0\.5 s.*stays queued/.test(w),
      ),
      warnings.join("\n"),
    );
    const journal = JSON.parse(readFileSync(path.join(home.path, "memory-pending.json"), "utf8")) as {
      entries: { threadId: string; attempts: number }[];
    };
    assert.deepEqual(
      journal.entries.map((entry) => [entry.threadId, entry.attempts]),
      [["t", 1]],
    );
  } finally {
    await server.close();
    home.cleanup();
  }
});
