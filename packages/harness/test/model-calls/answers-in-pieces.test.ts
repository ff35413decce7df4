/**
 * Answers that reach us in many network reads, through a real lead agent and the real ChatOpenAI
 * client, called non-streamed (as `deerflow run` and `runs/wait` do) and streamed. Before the fix in
 * deadline-fetch.ts each non-streamed case hung until the model timeout (here 30 s, so the failure is
 * visible); the streamed ones passed.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { type FakeStep, longAnswers, startFakeOpenAIServer } from "../../src/testing/index.js";
import { providerTurn } from "./provider-turn.js";

const { chinese: chineseAnswer, english70k: longAnswer, file100k: bigFile } = longAnswers;

async function turn(t: test.TestContext, script: FakeStep[], streamed: boolean) {
  const server = await startFakeOpenAIServer({ strict: true, script });
  t.after(() => server.close());
  // 30 s: a hung non-streamed call fails visibly within the test's time. A streamed call never hung,
  // and parsing 400 streamed tool calls takes the client seconds on a busy machine: more room there.
  const timeout = streamed ? 120 : 30;
  const entry = `name: fake, use: openai, model: fake-model, api_key: x, base_url: '${server.url}', max_retries: 0, timeout: ${timeout}`;
  const run = await providerTurn(t, entry, { streamed });
  assert.equal(run.error, undefined, run.error?.message);
  server.assertDone();
  return run;
}

for (const streamed of [false, true]) {
  const how = streamed ? "streamed" : "not streamed";

  test(`a 2,500-character answer in Chinese with emoji arrives whole (${how})`, { timeout: 60_000 }, async (t) => {
    const run = await turn(t, [{ content: chineseAnswer }], streamed);
    assert.equal(run.answer?.text, chineseAnswer);
  });

  test(`a 70,000-character answer arrives whole (${how})`, { timeout: 60_000 }, async (t) => {
    const run = await turn(t, [{ content: longAnswer }], streamed);
    assert.equal(run.answer?.text, longAnswer);
  });

  test(`a write_file call carrying 100,000 characters writes them all (${how})`, { timeout: 60_000 }, async (t) => {
    const run = await turn(
      t,
      [
        {
          tool_calls: [
            {
              name: "write_file",
              arguments: { description: "Save it", path: "/mnt/user-data/workspace/big.txt", content: bigFile },
            },
          ],
        },
        { content: "Written." },
      ],
      streamed,
    );
    assert.equal(run.answer?.text, "Written.");
    assert.equal(readFileSync(`${run.userData}/workspace/big.txt`, "utf8"), bigFile);
  });

  test(`400 small tool calls in one answer are all run (${how})`, { timeout: 180_000 }, async (t) => {
    const run = await turn(t, [{ tool_calls: longAnswers.lsCalls(400) }, { content: "Listed 400 times." }], streamed);
    assert.equal(run.answer?.text, "Listed 400 times.");
    assert.equal(run.messages.filter((m) => m.type === "tool").length, 400);
  });
}
