/**
 * What OpenAI and OpenAI-compatible servers (DeepSeek, vLLM, Qwen, gateways) put on the wire, through
 * a real lead agent and the real ChatOpenAI client, streamed and not, with bodies delivered in pieces.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { type FakeOpenAIServerOptions, startFakeOpenAIServer } from "../../src/testing/index.js";
import { providerTurn } from "./provider-turn.js";

async function turn(t: test.TestContext, options: FakeOpenAIServerOptions, streamed: boolean, retries = 0) {
  const server = await startFakeOpenAIServer({ strict: true, ...options });
  t.after(() => server.close());
  const entry = `name: fake, use: openai, model: fake-model, api_key: x, base_url: '${server.url}', max_retries: ${retries}, timeout: 30`;
  return { run: await providerTurn(t, entry, { streamed }), server };
}

const write = (file: string, content: string) => ({
  name: "write_file",
  arguments: { description: `Write ${file}`, path: `/mnt/user-data/workspace/${file}`, content },
});

for (const streamed of [false, true]) {
  const how = streamed ? "streamed" : "not streamed";

  test(`a stream whose deltas carry no role still answers as the assistant (${how})`, async (t) => {
    const { run } = await turn(t, { firstDeltaRole: false, script: [{ content: "No role was named." }] }, streamed);
    assert.equal(run.error, undefined, run.error?.message);
    assert.equal(run.answer?.text, "No role was named.");
  });

  test(`the usage of the answer is kept, from the usage-only last chunk when streamed (${how})`, async (t) => {
    const usage = { prompt_tokens: 1234, completion_tokens: 56 };
    const { run, server } = await turn(t, { script: [{ content: "Counted.", usage }] }, streamed);
    assert.equal(run.answer?.text, "Counted.");
    assert.equal(server.requests[0]!.stream_options?.include_usage, streamed ? true : undefined);
    assert.deepEqual(
      { in: run.answer?.usage_metadata?.input_tokens, out: run.answer?.usage_metadata?.output_tokens },
      { in: 1234, out: 56 },
    );
  });

  test(`parallel tool calls with arguments in many pieces are told apart by index and all run (${how})`, async (t) => {
    const first = '第一个文件 🚀 with "quotes" and \\ backslashes\n'.repeat(40);
    const second = "second file, 第二个 😀\n".repeat(60);
    const { run } = await turn(
      t,
      { script: [{ tool_calls: [write("one.txt", first), write("two.txt", second)] }, { content: "Both written." }] },
      streamed,
    );
    assert.equal(run.answer?.text, "Both written.");
    assert.equal(readFileSync(`${run.userData}/workspace/one.txt`, "utf8"), first);
    assert.equal(readFileSync(`${run.userData}/workspace/two.txt`, "utf8"), second);
  });

  test(`an answer cut by finish_reason length is continued; one cut by content_filter keeps the text sent, with a note (${how})`, async (t) => {
    const cut = await turn(
      t,
      { script: [{ content: "Cut short by length", finish_reason: "length" }, { content: ", then continued." }] },
      streamed,
    );
    assert.equal(cut.run.error, undefined, cut.run.error?.message);
    assert.equal(cut.run.answer?.text, "Cut short by length, then continued.");
    const filtered = await turn(
      t,
      { script: [{ content: "Cut short by content_filter", finish_reason: "content_filter" }] },
      streamed,
    );
    assert.equal(filtered.run.error, undefined, filtered.run.error?.message);
    assert.match(
      filtered.run.answer?.text ?? "",
      /^Cut short by content_filter\n\n\[The provider of model "fake" stopped this answer/,
    );
  });

  test(`a 200 with choices: [] fails with a message saying the provider sent no answer (${how})`, async (t) => {
    const { run } = await turn(t, { script: [{ content: "dropped", no_choices: true }] }, streamed);
    assert.match(
      run.error?.message ?? "",
      /^Model "fake" at http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 200 with (an empty "choices" list|a stream with no choice in it).*: the provider sent no answer/,
    );
  });

  test(`gzip-encoded answers are read whole (${how})`, async (t) => {
    const content = "压缩后的回答也要完整到达 🚀 ".repeat(300);
    const { run } = await turn(t, { gzip: true, script: [{ content }] }, streamed);
    assert.equal(run.answer?.text, content);
  });

  test(`a tool round trip reuses one keep-alive connection (${how})`, async (t) => {
    const { run, server } = await turn(
      t,
      { script: [{ tool_calls: [write("a.txt", "a")] }, { content: "Done in two calls." }] },
      streamed,
    );
    assert.equal(run.answer?.text, "Done in two calls.");
    assert.equal(server.requests.length, 2);
    assert.equal(server.connections, 1, "the second call came over the first call's connection");
  });

  test(`DeepSeek-style reasoning_content is kept beside the answer, not in it (${how})`, async (t) => {
    const reasoning = "先想一想：the user wants a greeting. 🤔";
    const { run } = await turn(t, { script: [{ reasoning, content: "Hello!" }] }, streamed);
    assert.equal(run.answer?.text, "Hello!");
    assert.equal(run.answer?.additional_kwargs.reasoning_content, reasoning);
  });

  test(`an error line partway through an answer is retried (${how})`, async (t) => {
    const { run, server } = await turn(
      t,
      {
        script: [{ content: "Half an ans", stream_error: { type: "server_error" } }, { content: "The whole answer." }],
      },
      streamed,
      1,
    );
    assert.equal(run.error, undefined, run.error?.message);
    assert.equal(run.answer?.text, "The whole answer.");
    assert.equal(server.requests.length, 2);
  });
}
