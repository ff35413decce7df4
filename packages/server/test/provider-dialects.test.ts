/**
 * Runs through the official SDK against fake providers that deliver their bodies in pieces, as a
 * network does: `runs/wait` (the model is called non-streamed) and `runs/stream` with `messages-tuple`
 * (the model is called streamed). The answers of issue 21 that hung until the model timeout, and each
 * provider dialect case (OpenAI-compatible, Anthropic Messages, Ollama). `runs/wait` runs set the
 * model's `timeout: 30` so that a hang fails the run visibly instead of waiting the default 600 s.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  type FakeProviderServer,
  type FakeStep,
  longAnswers,
  startFakeAnthropicServer,
  startFakeOllamaServer,
  startFakeOpenAIServer,
} from "@deerflow/harness/testing";
import { collect, startTestServer } from "./helpers.js";

interface Message {
  type: string;
  content: unknown;
  tool_calls?: Array<{ name: string; args: Record<string, unknown> }>;
  additional_kwargs?: Record<string, unknown>;
  usage_metadata?: { input_tokens: number; output_tokens: number };
}

type Fake = FakeProviderServer<unknown>;
type How = "wait" | "stream";
const closing = new WeakSet<Fake>();

type Use = "openai" | "anthropic" | "ollama";

/**
 * Runs "go" on a new thread of a test server whose model `dialect` (`use`) is at `fake`, with
 * `runs/wait` or `runs/stream`; returns the final messages, the streamed text, the error and the
 * thread's workspace.
 */
async function ask(t: test.TestContext, fake: Fake, use: Use, how: How, retries = 0) {
  if (!closing.has(fake)) t.after(() => fake.close());
  closing.add(fake);
  // 30 s: a hung non-streamed call fails visibly within the test's time. A streamed call never hung,
  // and parsing 400 streamed tool calls takes the client seconds on a busy machine: more room there.
  const timeout = how === "wait" ? 30 : 120;
  const server = await startTestServer({
    extraModels: [
      `{name: dialect, use: ${use}, model: m-fake, api_key: x, base_url: '${fake.url}', max_retries: ${retries}, timeout: ${timeout}}`,
    ],
    yaml: "llm_call: {retry_base_delay_ms: 20, retry_cap_delay_ms: 40}",
  });
  t.after(() => server.close());
  const thread = await server.client.threads.create();
  const request = {
    input: { messages: [{ role: "user", content: "go" }] },
    config: { configurable: { model_name: "dialect" } },
  };
  let messages: Message[] = [];
  let error: string | undefined;
  let streamed = "";
  if (how === "wait") {
    try {
      const values = (await server.client.runs.wait(thread.thread_id, "lead_agent", request)) as {
        messages: Message[];
      };
      messages = values.messages;
    } catch (caught) {
      error = (caught as Error).message; // the SDK raises a run's `__error__`
    }
  } else {
    const parts = await collect(
      server.client.runs.stream(thread.thread_id, "lead_agent", {
        ...request,
        streamMode: ["values", "messages-tuple"],
      }),
    );
    for (const part of parts) {
      if (part.event === "values") messages = (part.data as { messages: Message[] }).messages;
      if (part.event === "error") error = JSON.stringify(part.data);
      const [chunk] = (part.event === "messages" ? part.data : []) as Message[];
      if (chunk?.type === "ai" && typeof chunk.content === "string") streamed += chunk.content;
    }
  }
  const ai = messages.filter((m) => m.type === "ai");
  const workspace = `${server.home.path}/threads/${thread.thread_id}/user-data/workspace`;
  return { messages, answer: ai.at(-1), first: ai[0], error, streamed, workspace };
}

const text = (message: Message | undefined) =>
  typeof message?.content === "string"
    ? message.content
    : ((message?.content ?? []) as Array<{ type: string; text?: string }>)
        .filter((block) => block.type === "text")
        .map((block) => block.text)
        .join("");

const openai = (script: FakeStep[], options = {}) =>
  startFakeOpenAIServer({ strict: true, script, ...options }) as Promise<Fake>;
// `append` has no size cap (the test server keeps write_file's default 80 KiB cap for replacing writes).
const write = (file: string, content: string) => ({
  name: "write_file",
  arguments: { description: `Write ${file}`, path: `/mnt/user-data/workspace/${file}`, content, append: true },
});

for (const how of ["wait", "stream"] as const) {
  test(`runs/${how}: a 2,500-character answer in Chinese with emoji arrives whole`, { timeout: 60_000 }, async (t) => {
    const fake = await openai([{ content: longAnswers.chinese }]);
    const run = await ask(t, fake, "openai", how);
    assert.equal(run.error, undefined);
    assert.equal(text(run.answer), longAnswers.chinese);
    if (how === "stream") assert.equal(run.streamed, longAnswers.chinese);
  });

  test(`runs/${how}: a 70,000-character answer arrives whole`, { timeout: 60_000 }, async (t) => {
    const fake = await openai([{ content: longAnswers.english70k }]);
    const run = await ask(t, fake, "openai", how);
    assert.equal(run.error, undefined);
    assert.equal(text(run.answer), longAnswers.english70k);
  });

  test(`runs/${how}: a write_file call carrying 100,000 characters writes them all`, { timeout: 60_000 }, async (t) => {
    const fake = await openai([{ tool_calls: [write("big.txt", longAnswers.file100k)] }, { content: "Written." }]);
    const run = await ask(t, fake, "openai", how);
    assert.equal(run.error, undefined);
    assert.equal(text(run.answer), "Written.");
    assert.equal(readFileSync(`${run.workspace}/big.txt`, "utf8"), longAnswers.file100k);
  });

  test(`runs/${how}: 400 small tool calls in one answer are all run`, { timeout: 180_000 }, async (t) => {
    const fake = await openai([{ tool_calls: longAnswers.lsCalls(400) }, { content: "Listed 400 times." }]);
    const run = await ask(t, fake, "openai", how);
    assert.equal(run.error, undefined);
    assert.equal(text(run.answer), "Listed 400 times.");
    assert.equal(run.messages.filter((m) => m.type === "tool").length, 400);
  });

  test(`runs/${how}: OpenAI deltas without a role answer as the assistant`, async (t) => {
    const fake = await openai([{ content: "No role." }], { firstDeltaRole: false });
    const run = await ask(t, fake, "openai", how);
    assert.equal(run.error, undefined);
    assert.equal(text(run.answer), "No role.");
  });

  test(`runs/${how}: OpenAI usage, from the usage-only last chunk when streamed, is on the answer`, async (t) => {
    const fake = await openai([{ content: "Counted.", usage: { prompt_tokens: 1234, completion_tokens: 56 } }]);
    const run = await ask(t, fake, "openai", how);
    assert.deepEqual(
      { in: run.answer?.usage_metadata?.input_tokens, out: run.answer?.usage_metadata?.output_tokens },
      { in: 1234, out: 56 },
    );
  });

  test(`runs/${how}: OpenAI parallel tool calls in many argument pieces both run`, async (t) => {
    const fake = await openai([
      { tool_calls: [write("one.txt", "第一 🚀\n".repeat(50)), write("two.txt", "second 😀\n".repeat(50))] },
      { content: "Both written." },
    ]);
    const run = await ask(t, fake, "openai", how);
    assert.equal(text(run.answer), "Both written.");
    assert.equal(readFileSync(`${run.workspace}/one.txt`, "utf8"), "第一 🚀\n".repeat(50));
    assert.equal(readFileSync(`${run.workspace}/two.txt`, "utf8"), "second 😀\n".repeat(50));
  });

  test(`runs/${how}: OpenAI answers cut by length are continued; filtered ones keep the text sent, with a note`, async (t) => {
    const fake = await openai([
      { content: "Cut by length", finish_reason: "length" },
      { content: ", then continued." },
      { content: "Cut by filter", finish_reason: "content_filter" },
    ]);
    const first = await ask(t, fake, "openai", how);
    assert.equal(text(first.answer), "Cut by length, then continued.");
    const second = await ask(t, fake, "openai", how);
    assert.match(
      text(second.answer),
      /^Cut by filter\n\n\[The provider of model "\w+" stopped this answer with a safety signal/,
    );
  });

  test(`runs/${how}: an OpenAI 200 with choices: [] fails with a message saying the provider sent no answer`, async (t) => {
    const fake = await openai([{ content: "x", no_choices: true }]);
    const run = await ask(t, fake, "openai", how);
    assert.match(
      run.error ?? "",
      /answered HTTP 200 with (an empty \\?"choices\\?" list|a stream with no choice in it)/,
    );
    assert.doesNotMatch(run.error ?? "", /TypeError|Cannot read properties/);
  });

  test(`runs/${how}: gzip-encoded OpenAI answers arrive whole`, async (t) => {
    const content = "压缩的回答 🚀 ".repeat(300);
    const fake = await openai([{ content }], { gzip: true });
    const run = await ask(t, fake, "openai", how);
    assert.equal(text(run.answer), content);
  });

  test(`runs/${how}: a tool round trip reuses one keep-alive connection`, async (t) => {
    const fake = await openai([{ tool_calls: [write("a.txt", "a")] }, { content: "Two calls." }]);
    const run = await ask(t, fake, "openai", how);
    assert.equal(text(run.answer), "Two calls.");
    assert.equal(fake.connections, 1);
  });

  test(`runs/${how}: reasoning_content is kept beside the answer`, async (t) => {
    const fake = await openai([{ reasoning: "Thinking about 问候. 🤔", content: "Hello!" }]);
    const run = await ask(t, fake, "openai", how);
    assert.equal(text(run.answer), "Hello!");
    assert.equal(run.answer?.additional_kwargs?.reasoning_content, "Thinking about 问候. 🤔");
  });

  test(`runs/${how}: an OpenAI error partway through an answer is retried`, async (t) => {
    const fake = await openai([{ content: "Half", stream_error: { type: "server_error" } }, { content: "Whole." }]);
    const run = await ask(t, fake, "openai", how, 1);
    assert.equal(run.error, undefined);
    assert.equal(text(run.answer), "Whole.");
  });

  test(`runs/${how}: Anthropic thinking, a tool call in input_json_delta pieces and a long answer`, async (t) => {
    const fake = (await startFakeAnthropicServer({
      script: [
        { reasoning: "Write first. 🤔", tool_calls: [write("c.txt", "Claude 写的 🚀\n".repeat(100))] },
        { content: longAnswers.chinese },
      ],
    })) as Fake;
    const run = await ask(t, fake, "anthropic", how);
    assert.equal(run.error, undefined);
    assert.equal(text(run.answer), longAnswers.chinese);
    assert.equal(readFileSync(`${run.workspace}/c.txt`, "utf8"), "Claude 写的 🚀\n".repeat(100));
    assert.match(JSON.stringify(run.first?.content), /"thinking":"Write first\. 🤔"/);
  });

  test(`runs/${how}: an Anthropic overloaded_error partway through is retried`, async (t) => {
    const fake = (await startFakeAnthropicServer({
      script: [{ content: "Half", stream_error: { type: "overloaded_error" } }, { content: "Whole." }],
    })) as Fake;
    const run = await ask(t, fake, "anthropic", how, 1);
    assert.equal(run.error, undefined);
    assert.equal(text(run.answer), "Whole.");
  });

  test(`runs/${how}: Ollama thinking, a tool call, then a long answer`, async (t) => {
    const fake = (await startFakeOllamaServer({
      script: [{ reasoning: "Hmm.", tool_calls: [write("o.txt", "本地 🚀")] }, { content: longAnswers.chinese }],
    })) as Fake;
    const run = await ask(t, fake, "ollama", how);
    assert.equal(run.error, undefined);
    assert.equal(text(run.answer), longAnswers.chinese);
    assert.equal(readFileSync(`${run.workspace}/o.txt`, "utf8"), "本地 🚀");
    assert.equal(run.first?.additional_kwargs?.reasoning_content, "Hmm.");
  });
}
