import assert from "node:assert/strict";
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

test("a memory update that hangs does not keep the process from closing: it gives up at the memory deadline", {
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
    await agent.close(); // flushes memory, as the CLI does before exiting
    assert.equal(server.requests.length, 2, "the memory call was made");
    assert.ok(
      warnings.some((w) => /Memory update for thread t skipped: .*did not finish its answer within 0\.5 s/.test(w)),
      warnings.join("\n"),
    );
  } finally {
    await server.close();
    home.cleanup();
  }
});
