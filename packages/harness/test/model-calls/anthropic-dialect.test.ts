/**
 * Anthropic's Messages API as its documentation describes the wire, through a real lead agent and the
 * real ChatAnthropic client (`use: anthropic` with `base_url` at the fake), streamed and not, with
 * bodies delivered in pieces: text and `input_json_delta` cut anywhere, thinking blocks, `ping`s, and
 * an `overloaded_error` partway through an answer.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { type FakeStep, longAnswers, startFakeAnthropicServer } from "../../src/testing/index.js";
import { providerTurn } from "./provider-turn.js";

async function turn(t: test.TestContext, script: FakeStep[], streamed: boolean, retries = 0) {
  const server = await startFakeAnthropicServer({ script });
  t.after(() => server.close());
  const entry = `name: claude, use: anthropic, model: claude-fake, api_key: x, base_url: '${server.url}', max_retries: ${retries}, timeout: 30`;
  const run = await providerTurn(t, entry, { streamed });
  return { run, server };
}

for (const streamed of [false, true]) {
  const how = streamed ? "streamed" : "not streamed";

  test(`a long answer in Chinese with emoji arrives whole (${how})`, { timeout: 60_000 }, async (t) => {
    const { run, server } = await turn(t, [{ content: longAnswers.chinese }], streamed);
    assert.equal(run.error, undefined, run.error?.message);
    assert.equal(run.answer?.text, longAnswers.chinese);
    assert.equal(server.requests[0]!.stream ?? false, streamed);
  });

  test(`thinking, then a tool call whose input arrives in pieces, then the answer (${how})`, async (t) => {
    const content = 'Anthropic 的工具输入 🚀 with "quotes"\n'.repeat(50);
    const { run, server } = await turn(
      t,
      [
        {
          reasoning: "I should write the file. 🤔",
          tool_calls: [
            {
              name: "write_file",
              arguments: { description: "Write it", path: "/mnt/user-data/workspace/c.txt", content },
            },
          ],
        },
        { content: "Written by Claude." },
      ],
      streamed,
    );
    assert.equal(run.error, undefined, run.error?.message);
    assert.equal(run.answer?.text, "Written by Claude.");
    assert.equal(readFileSync(`${run.userData}/workspace/c.txt`, "utf8"), content);
    const thinking = (run.messages.find((m) => m.type === "ai")!.content as Array<Record<string, unknown>>)[0];
    assert.deepEqual([thinking?.type, thinking?.thinking], ["thinking", "I should write the file. 🤔"]);
    const toolResult = server.requests[1]!.messages.at(-1)!.content as Array<{ type: string }>;
    assert.equal(toolResult[0]!.type, "tool_result", "the second call answers the tool_use");
    server.assertDone();
  });

  test(`an overloaded_error partway through an answer is retried (${how})`, async (t) => {
    const { run, server } = await turn(
      t,
      [{ content: "Half an ans", stream_error: { type: "overloaded_error" } }, { content: "The whole answer." }],
      streamed,
      1,
    );
    assert.equal(run.error, undefined, run.error?.message);
    assert.equal(run.answer?.text, "The whole answer.");
    assert.equal(server.requests.length, 2);
  });
}
