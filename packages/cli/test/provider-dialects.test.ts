/**
 * `deerflow run` (which calls the model non-streamed) against fake providers that deliver their
 * bodies in pieces, as a network does: the answers of issue 21 that hung until the model timeout, and
 * each provider dialect case (OpenAI-compatible, Anthropic Messages, Ollama). The entries set
 * `timeout: 30` so that a hang fails the run visibly instead of waiting the default 600 s.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import {
  type FakeProviderServer,
  type FakeStep,
  longAnswers,
  startFakeAnthropicServer,
  startFakeOllamaServer,
  startFakeOpenAIServer,
  tempHome,
} from "@deerflow/harness/testing";
import { deerflow } from "./run-cli.js";

interface RunJson {
  thread_id: string;
  answer: string;
  token_usage: { run: { input_tokens: number; output_tokens: number } | null };
  error?: { message: string };
}

type Fake = FakeProviderServer<unknown>;

/** Runs `deerflow run --json go` in a folder whose only model is `entry` at `server`. */
async function run(t: test.TestContext, server: Fake, entry: string) {
  t.after(() => server.close());
  const config =
    `models:\n  - {${entry}, base_url: '${server.url}', timeout: 30}\n` +
    "sandbox: {use: local, write_file_max_bytes: 0}\nmemory: {enabled: false}\ntitle: {enabled: false}\n" +
    "llm_call: {retry_base_delay_ms: 20, retry_cap_delay_ms: 40}\n";
  const dir = tempHome(t, { prefix: "df-cli-dialect-", files: { "config.yaml": config } });
  const result = await deerflow(dir, ["run", "--json", "go"]);
  const output = JSON.parse(result.stdout || "{}") as RunJson;
  const workspace = () => {
    const threads = path.join(dir, ".deer-flow", "threads");
    return path.join(threads, readdirSync(threads)[0]!, "user-data", "workspace");
  };
  return { ...result, output, workspace };
}

const OPENAI = "name: fake, use: openai, model: fake-model, api_key: sk-test, max_retries: 0";
const ANTHROPIC = "name: claude, use: anthropic, model: claude-fake, api_key: sk-test, max_retries: 1";
const OLLAMA = "name: local, use: ollama, model: llama-fake, max_retries: 0";

const openai = (script: FakeStep[], options = {}) =>
  startFakeOpenAIServer({ strict: true, script, ...options }) as Promise<Fake>;
const write = (file: string, content: string) => ({
  name: "write_file",
  arguments: { description: `Write ${file}`, path: `/mnt/user-data/workspace/${file}`, content },
});

test("a 2,500-character answer in Chinese with emoji is printed whole", { timeout: 60_000 }, async (t) => {
  const result = await run(t, await openai([{ content: longAnswers.chinese }]), OPENAI);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.output.answer, longAnswers.chinese);
});

test("a 70,000-character answer is printed whole", { timeout: 60_000 }, async (t) => {
  const result = await run(t, await openai([{ content: longAnswers.english70k }]), OPENAI);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.output.answer, longAnswers.english70k);
});

test("a write_file call carrying 100,000 characters writes them all", { timeout: 60_000 }, async (t) => {
  const server = await openai([{ tool_calls: [write("big.txt", longAnswers.file100k)] }, { content: "Written." }]);
  const result = await run(t, server, OPENAI);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.output.answer, "Written.");
  assert.equal(readFileSync(path.join(result.workspace(), "big.txt"), "utf8"), longAnswers.file100k);
});

test("400 small tool calls in one answer are all run", { timeout: 60_000 }, async (t) => {
  const server = await openai([{ tool_calls: longAnswers.lsCalls(400) }, { content: "Listed 400 times." }]);
  const result = await run(t, server, OPENAI);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.output.answer, "Listed 400 times.");
  const sent = (server.requests[1] as { messages: Array<{ role: string }> }).messages;
  assert.equal(sent.filter((m) => m.role === "tool").length, 400);
});

test("OpenAI: a server that names no role answers as usual", async (t) => {
  const result = await run(t, await openai([{ content: "No role." }], { firstDeltaRole: false }), OPENAI);
  assert.equal(result.output.answer, "No role.", result.stderr);
});

test("OpenAI: usage is reported in token_usage", async (t) => {
  const usage = { prompt_tokens: 1234, completion_tokens: 56 };
  const result = await run(t, await openai([{ content: "Counted.", usage }]), OPENAI);
  assert.equal(result.output.answer, "Counted.", result.stderr);
  assert.deepEqual(
    { in: result.output.token_usage.run?.input_tokens, out: result.output.token_usage.run?.output_tokens },
    { in: 1234, out: 56 },
  );
});

test("OpenAI: parallel tool calls both run", async (t) => {
  const server = await openai([
    { tool_calls: [write("one.txt", "第一 🚀\n".repeat(50)), write("two.txt", "second 😀\n".repeat(50))] },
    { content: "Both written." },
  ]);
  const result = await run(t, server, OPENAI);
  assert.equal(result.output.answer, "Both written.", result.stderr);
  assert.equal(readFileSync(path.join(result.workspace(), "one.txt"), "utf8"), "第一 🚀\n".repeat(50));
  assert.equal(readFileSync(path.join(result.workspace(), "two.txt"), "utf8"), "second 😀\n".repeat(50));
});

test("OpenAI: an answer cut by finish_reason length is continued; one stopped by content_filter is printed with a note", async (t) => {
  const cut = await run(
    t,
    await openai([{ content: "Cut by length", finish_reason: "length" }, { content: ", then continued." }]),
    OPENAI,
  );
  assert.equal(cut.code, 0, cut.stderr);
  assert.equal(cut.output.answer, "Cut by length, then continued.");
  const filtered = await run(
    t,
    await openai([{ content: "Cut by content_filter", finish_reason: "content_filter" }]),
    OPENAI,
  );
  assert.equal(filtered.code, 0, filtered.stderr);
  assert.match(
    filtered.output.answer ?? "",
    /^Cut by content_filter\n\n\[The provider of model "\w+" stopped this answer/,
  );
});

test("OpenAI: a 200 with choices: [] fails with a message saying the provider sent no answer", async (t) => {
  const result = await run(t, await openai([{ content: "x", no_choices: true }]), OPENAI);
  assert.notEqual(result.code, 0);
  assert.match(
    result.output.error?.message ?? "",
    /answered HTTP 200 with an empty "choices" list.*: the provider sent no answer/,
  );
  assert.doesNotMatch(result.stdout + result.stderr, /TypeError|Cannot read properties/);
});

test("OpenAI: a gzip-encoded answer is printed whole", async (t) => {
  const content = "压缩的回答 🚀 ".repeat(300);
  const result = await run(t, await openai([{ content }], { gzip: true }), OPENAI);
  assert.equal(result.output.answer, content, result.stderr);
});

test("OpenAI: a tool round trip reuses one keep-alive connection", async (t) => {
  const server = await openai([{ tool_calls: [write("a.txt", "a")] }, { content: "Two calls." }]);
  const result = await run(t, server, OPENAI);
  assert.equal(result.output.answer, "Two calls.", result.stderr);
  assert.equal(server.connections, 1);
});

test("OpenAI: reasoning_content is not printed as the answer", async (t) => {
  const result = await run(t, await openai([{ reasoning: "Thinking about 问候.", content: "Hello!" }]), OPENAI);
  assert.equal(result.output.answer, "Hello!", result.stderr);
});

test("Anthropic: thinking, a tool call and a long answer in Chinese", { timeout: 60_000 }, async (t) => {
  const server = (await startFakeAnthropicServer({
    script: [
      { reasoning: "Write first. 🤔", tool_calls: [write("c.txt", "Claude 写的 🚀\n".repeat(100))] },
      { content: longAnswers.chinese },
    ],
  })) as Fake;
  const result = await run(t, server, ANTHROPIC);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.output.answer, longAnswers.chinese);
  assert.equal(readFileSync(path.join(result.workspace(), "c.txt"), "utf8"), "Claude 写的 🚀\n".repeat(100));
});

test("Anthropic: an overloaded model is retried and the CLI says so", async (t) => {
  const server = (await startFakeAnthropicServer({
    script: [{ content: "Half", stream_error: { type: "overloaded_error" } }, { content: "Whole." }],
  })) as Fake;
  const result = await run(t, server, ANTHROPIC);
  assert.equal(result.output.answer, "Whole.", result.stderr);
  assert.match(result.stderr, /model claude: .*HTTP 529.*retry 1 of 1/);
});

test("Ollama: thinking, a tool call, then a long answer in Chinese", { timeout: 60_000 }, async (t) => {
  const server = (await startFakeOllamaServer({
    script: [{ reasoning: "Hmm.", tool_calls: [write("o.txt", "本地 🚀")] }, { content: longAnswers.chinese }],
  })) as Fake;
  const result = await run(t, server, OLLAMA);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.output.answer, longAnswers.chinese);
  assert.equal(readFileSync(path.join(result.workspace(), "o.txt"), "utf8"), "本地 🚀");
});
