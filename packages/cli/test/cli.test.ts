/**
 * The built `deerflow` binary, run as a user runs it: a subprocess with its own working directory and
 * home, against the fake OpenAI-compatible server.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { CLI, deerflow } from "./run-cli.js";
import { createTempHome, startFakeOpenAIServer, type TempHome } from "@deerflow/harness/testing";

function configWith(dir: TempHome, url: string): void {
  writeFileSync(
    path.join(dir.path, "config.yaml"),
    `models:\n  - name: fake\n    use: openai\n    model: fake-model\n    api_key: sk-test\n    base_url: ${url}\n    max_retries: 0\nmemory: {enabled: false}\ntitle: {enabled: false}\n`,
  );
}

const threadOf = (stderr: string) => /thread: ([\w-]+)/.exec(stderr)?.[1];

before(() => {
  assert.ok(existsSync(CLI), `build the CLI first (npm run build): ${CLI} is missing`);
});

let dirs: TempHome[] = [];
const tempDir = () => {
  const dir = createTempHome({ prefix: "df-cli-" });
  dirs.push(dir);
  return dir;
};
after(() => {
  for (const dir of dirs) dir.cleanup();
  dirs = [];
});

test("--version and --help answer without loading the agent", async () => {
  const dir = tempDir();
  const version = await deerflow(dir.path, ["--version"]);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^deerflow \d+\.\d+\.\d+/);
  for (const command of ["run", "chat", "threads", "users"]) {
    const help = await deerflow(dir.path, [command, "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, new RegExp(`Usage: deerflow ${command}`));
  }
});

test("with no config and no keys, the demo model completes a task offline", async () => {
  const dir = tempDir();
  const result = await deerflow(dir.path, ["run", "--json", "Say hello"]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /model: demo/);
  const output = JSON.parse(result.stdout) as { thread_id: string; answer: string; artifacts: string[] };
  assert.match(output.answer, /\[demo model\]/);
  assert.equal(output.thread_id, threadOf(result.stderr));
});

test("an OpenAI-compatible model runs, and --thread continues the thread in a new process", async () => {
  const dir = tempDir();
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [{ content: "Noted: your name is Ada." }, { content: "Your name is Ada." }],
  });
  try {
    configWith(dir, server.url);
    const first = await deerflow(dir.path, ["run", "My name is Ada."]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout.trim(), "Noted: your name is Ada.");
    const thread = threadOf(first.stderr)!;
    const second = await deerflow(dir.path, ["run", "--thread", thread, "What is my name?"]);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout.trim(), "Your name is Ada.");
    const sent = JSON.stringify(server.requests[1]!.messages);
    assert.match(sent, /My name is Ada\./);
    assert.match(sent, /Noted: your name is Ada\./);
    const threads = await deerflow(dir.path, ["threads"]);
    assert.match(threads.stdout, new RegExp(`${thread} .* 4 messages`));
  } finally {
    await server.close();
  }
});

test("a bad config.yaml exits 2 with the file, key path and value, without a stack trace", async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir.path, "config.yaml"), "sandbox:\n  use: docker\n");
  const result = await deerflow(dir.path, ["run", "x"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /config\.yaml is not valid/);
  assert.match(result.stderr, /sandbox\.use: found "docker"/);
  assert.doesNotMatch(result.stderr, /\n\s+at /);
});

test("an unknown --model exits 2 and lists the configured names", async () => {
  const dir = tempDir();
  const result = await deerflow(dir.path, ["run", "--model", "gpt-9", "x"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /Model "gpt-9" is not configured\. Configured models: demo/);
});

test("usage errors exit 2", async () => {
  const dir = tempDir();
  assert.equal((await deerflow(dir.path, ["run"])).code, 2);
  assert.equal((await deerflow(dir.path, ["run", "--bogus", "x"])).code, 2);
  assert.equal((await deerflow(dir.path, ["frobnicate"])).code, 2);
});

test("a 401 exits 1 with one line naming the model and base_url, and the thread keeps the message", async () => {
  const dir = tempDir();
  const server = await startFakeOpenAIServer({
    script: [{ status: 401, error: { message: "Incorrect API key provided" } }, { content: "Recovered." }],
  });
  try {
    configWith(dir, server.url);
    const failed = await deerflow(dir.path, ["run", "Remember the number 42."]);
    assert.equal(failed.code, 1);
    const errorLine = failed.stderr.split("\n").find((line) => line.startsWith("deerflow: "))!;
    assert.match(errorLine, /Model "fake" at http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 401 \(check api_key\)/);
    const thread = threadOf(failed.stderr)!;
    const resumed = await deerflow(dir.path, ["run", "--thread", thread]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout.trim(), "Recovered.");
    assert.match(JSON.stringify(server.requests[1]!.messages), /Remember the number 42\./);
  } finally {
    await server.close();
  }
});

test("an unreachable endpoint exits 1 and says so", async () => {
  const dir = tempDir();
  const server = await startFakeOpenAIServer({ script: [] });
  const url = server.url;
  await server.close();
  configWith(dir, url);
  const result = await deerflow(dir.path, ["run", "hello"]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /Model "fake" at http:\/\/127\.0\.0\.1:\d+\/v1 is unreachable/);
});

test("a refused upload exits 2 with the reason and runs nothing", async () => {
  const dir = tempDir();
  const missing = await deerflow(dir.path, ["run", "--upload", "does-not-exist.txt", "x"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /does-not-exist\.txt/);
  assert.doesNotMatch(missing.stdout, /demo model/);
});

test("run --json reports the run's and the thread's token usage", async () => {
  const dir = tempDir();
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      { content: "One.", usage: { prompt_tokens: 100, completion_tokens: 10 } },
      { content: "Two.", usage: { prompt_tokens: 200, completion_tokens: 20 } },
    ],
  });
  try {
    configWith(dir, server.url);
    const first = await deerflow(dir.path, ["run", "--json", "First"]);
    assert.equal(first.code, 0, first.stderr);
    const thread = threadOf(first.stderr)!;
    const second = await deerflow(dir.path, ["run", "--json", "--thread", thread, "Second"]);
    assert.equal(second.code, 0, second.stderr);
    const output = JSON.parse(second.stdout) as { token_usage: Record<string, unknown> };
    assert.deepEqual(output.token_usage, {
      run: { input_tokens: 200, output_tokens: 20, total_tokens: 220 },
      thread: { input_tokens: 300, output_tokens: 30, total_tokens: 330 },
    });
  } finally {
    await server.close();
  }
});
