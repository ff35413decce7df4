import assert from "node:assert/strict";
import { test } from "node:test";
import type { BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { createLeadAgent } from "../../src/agent/create-lead-agent.js";
import { parseConfigText } from "../../src/config/load-config.js";
import {
  createTempHome,
  fakeRequestTokens,
  startFakeOpenAIServer,
  type FakeStep,
  type TempHome,
} from "../../src/testing/index.js";

const configFor = (url: string) =>
  parseConfigText(
    `models:\n  - {name: small, use: openai, model: fake-model, api_key: x, base_url: '${url}'}\nmemory: {enabled: false}\ntitle: {enabled: false}\nsandbox: {use: local}\n`,
    { source: "config.yaml", env: {} },
  );

const RESULT_CHARS = 30_000;
const dump = tool(
  async ({ part }: { part: number }) =>
    `part ${part} begins. ${"log line with some text\n".repeat(RESULT_CHARS / 24)} part ${part} ends.`,
  {
    name: "dump",
    description: "Dumps a large log part",
    schema: z.object({ part: z.number() }),
  },
);

async function turn(home: TempHome, url: string, text: string) {
  const warnings: string[] = [];
  const agent = await createLeadAgent(configFor(url), {
    home: home.path,
    env: {},
    tools: [dump],
    onWarning: (w) => warnings.push(w),
  });
  try {
    const out = await agent.invoke(
      { messages: [{ role: "user", content: text }] },
      { configurable: { thread_id: "big" } },
    );
    return { answer: (out.messages.at(-1) as BaseMessage).text, messages: out.messages as BaseMessage[], warnings };
  } finally {
    await agent.close();
  }
}

/** Tokens the fake server counts for a one-message turn of the lead agent (system prompt, tool schemas aside). */
async function baselineTokens(): Promise<number> {
  const home = createTempHome();
  const probe = await startFakeOpenAIServer({ script: [{ content: "hi" }] });
  try {
    await turn(home, probe.url, "Read the three parts of the log and summarize them.");
    return fakeRequestTokens(probe.requests[0]!);
  } finally {
    await probe.close();
    home.cleanup();
  }
}

const threeDumps: FakeStep = { tool_calls: [1, 2, 3].map((part) => ({ name: "dump", arguments: { part } })) };

test("a turn whose tool results outgrow the window succeeds after a harder compaction, and so does the next turn", async () => {
  const window = (await baselineTokens()) + 4000;
  const home = createTempHome();
  const server = await startFakeOpenAIServer({
    strict: true,
    contextWindow: window,
    script: [threeDumps, { content: "The log has three parts." }, { content: "Part 2 was the longest." }],
  });
  try {
    const first = await turn(home, server.url, "Read the three parts of the log and summarize them.");
    assert.equal(first.answer, "The log has three parts.");
    assert.ok(
      first.warnings.some((w) => /did not fit the context window; sending it again/.test(w)),
      first.warnings.join("\n"),
    );
    assert.equal(server.rejected.length, 1, "one request refused for its size, none for pairing");
    assert.match(server.rejected[0]!.message, /maximum context length/);

    // The checkpoint keeps every tool result whole: only requests are cut.
    const results = first.messages.filter((m) => m.type === "tool");
    assert.equal(results.length, 3);
    assert.ok(results.every((m) => m.text.length > RESULT_CHARS - 100 && m.text.endsWith("ends.")));
    const sent = JSON.stringify(server.requests.at(-1)!.messages);
    assert.match(sent, /characters of this tool result left out to fit the model's context window/);
    assert.match(sent, /part 3 begins[\s\S]*part 3 ends/, "head and tail of each result are kept");

    // A later turn, from a new process, carries the same large tail and must not fail for ever.
    const second = await turn(home, server.url, "Which part was the longest?");
    assert.equal(second.answer, "Part 2 was the longest.");
    assert.equal(server.rejected.length, 2, "the new process met the window once more, then compacted");
    server.assertDone();
    assert.ok(server.requests.slice(-1).every((request) => fakeRequestTokens(request) <= window));
  } finally {
    await server.close();
    home.cleanup();
  }
});

test("each tool result is bounded in the request even when the window is large", async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({ strict: true, script: [threeDumps, { content: "ok" }] });
  try {
    await turn(home, server.url, "Read the log.");
    const toolMessages = server.requests[1]!.messages.filter((m) => m.role === "tool");
    assert.equal(toolMessages.length, 3);
    for (const message of toolMessages)
      assert.ok(
        String(message.content).length < 20_000 + 200,
        `a result of ${String(message.content).length} characters was sent`,
      );
  } finally {
    await server.close();
    home.cleanup();
  }
});

test("a thread that cannot fit even after compaction says so in one line with what to do", async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({ contextWindow: 50, script: [] });
  try {
    await assert.rejects(turn(home, server.url, "hello"), (error: Error) => {
      assert.match(
        error.message,
        /^This thread no longer fits the context window of Model "small" at http:\/\/127\.0\.0\.1:\d+\/v1/,
      );
      assert.match(error.message, /Start a new thread/);
      assert.ok(!error.message.includes("\n"));
      return true;
    });
    assert.equal(server.requests.length, 2, "the request and one compacted retry");
  } finally {
    await server.close();
    home.cleanup();
  }
});
