/**
 * Title and memory calls never delay the answer or the process exit: with a title model that hangs, the
 * answer is on stdout while the title is still awaited; with title and memory models that never answer,
 * the process still exits after its answer, the thread keeps the fallback title, and the conversation
 * waits in the home until the next process learns from it.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { deerflow, startDeerflow } from "./run-cli.js";
import { createTempHome, type FakeStep, startFakeOpenAIServer } from "@deerflow/harness/testing";

const modelYaml = (url: string) =>
  `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk, base_url: '${url}', max_retries: 0}\nsandbox: {use: local}\n`;

test("a hung title call does not hold back the answer: it is on stdout while the title is still awaited", {
  timeout: 90_000,
}, async () => {
  const dir = createTempHome({ prefix: "df-title-hang-" });
  // The title request is answered only once the test has seen the answer (or given up waiting for it).
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = await startFakeOpenAIServer({
    script: async (body): Promise<FakeStep> => {
      if (!JSON.stringify(body.messages).includes("Write a title")) return { content: "The answer is 42." };
      await released;
      return { content: "Answer title" };
    },
  });
  try {
    writeFileSync(
      path.join(dir.path, "config.yaml"),
      `${modelYaml(server.url)}memory: {enabled: false}\nllm_call: {title_timeout_seconds: 60}\n`,
    );
    const run = startDeerflow(dir.path, ["run", "What is the answer?"]);
    const seen = await new Promise<string>((resolve) => {
      const check = () => run.stdout.includes("The answer is 42.") && resolve("answer");
      run.child.stdout!.on("data", check);
      void run.exited.then(() => resolve("exited"));
      setTimeout(() => resolve("still waiting for the title"), 30_000).unref(); // not keeping the file alive
    });
    release();
    const end = await run.exited;
    assert.equal(seen, "answer", `stdout: ${JSON.stringify(run.stdout)}\n${run.stderr}`);
    assert.ok(
      server.requests.some((request) => JSON.stringify(request.messages).includes("Write a title")),
      "the title call was made",
    );
    assert.deepEqual(end, { code: 0, signal: null }, run.stderr);
    assert.equal(run.stdout, "The answer is 42.\n", "printed once");
  } finally {
    release();
    await server.close();
    dir.cleanup();
  }
});

test("with the memory and title models hung for good, run still exits after its answer; the next run learns what it was told", {
  timeout: 120_000,
}, async () => {
  const dir = createTempHome({ prefix: "df-memory-hang-" });
  let memoryWorks = false;
  const update = JSON.stringify({
    newFacts: [{ content: "Works at Acme on payment APIs", category: "context", confidence: 0.95 }],
  });
  const server = await startFakeOpenAIServer({
    script: (body): FakeStep => {
      const sent = JSON.stringify(body.messages);
      if (sent.includes("long-term memory")) return memoryWorks ? { content: update } : { hang: {} };
      if (sent.includes("Write a title")) return memoryWorks ? { content: "Work at Acme" } : { hang: {} };
      return { content: "Noted." };
    },
  });
  try {
    writeFileSync(
      path.join(dir.path, "config.yaml"),
      `${modelYaml(server.url)}llm_call: {memory_timeout_seconds: 600, title_timeout_seconds: 600}\n`,
    );
    const first = startDeerflow(dir.path, ["run", "I work at Acme on payment APIs"]);
    // Neither endpoint ever answers: that the process ends at all is the point.
    assert.deepEqual(await first.exited, { code: 0, signal: null }, first.stderr);
    assert.equal(first.stdout, "Noted.\n");
    assert.ok(server.requests.some((request) => JSON.stringify(request.messages).includes("long-term memory")));
    assert.doesNotMatch(first.stderr, /Memory update/, "an update cut short by the exit is not a failure");
    const journal = JSON.parse(readFileSync(path.join(dir.path, ".deer-flow", "memory-pending.json"), "utf8")) as {
      entries: { threadId: string; conversation: { content: string }[]; holder: unknown }[];
    };
    const thread = /thread: ([\w-]+)/.exec(first.stderr)![1]!;
    assert.deepEqual(
      journal.entries.map((entry) => [entry.threadId, entry.conversation[0]?.content, entry.holder]),
      [[thread, "I work at Acme on payment APIs", null]],
      "the conversation waits in the home, released for the next process",
    );
    const threads = await deerflow(dir.path, ["threads"]);
    assert.match(threads.stdout, new RegExp(`${thread} .* I work at Acme on payment APIs\\n`), "the fallback title");

    memoryWorks = true;
    const next = await deerflow(dir.path, ["run", "Hello again"]);
    assert.equal(next.code, 0, next.stderr);
    const shown = await deerflow(dir.path, ["memory", "show"]);
    assert.match(shown.stdout, /Works at Acme on payment APIs/);
    assert.equal(existsSync(path.join(dir.path, ".deer-flow", "memory-pending.json")), false, "nothing left to learn");
  } finally {
    await server.close();
    dir.cleanup();
  }
});
