/**
 * Title and memory calls never delay the answer or the process exit: with a title model that hangs, the
 * answer is on stdout while the process is still waiting for the title deadline; with a memory update
 * that hangs, the process still exits at the memory deadline.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { startDeerflow } from "./run-cli.js";
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
      setTimeout(() => resolve("still waiting for the title"), 30_000);
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

test("a hung memory update does not keep the CLI from exiting: it gives up at the memory deadline", {
  timeout: 60_000,
}, async () => {
  const dir = createTempHome({ prefix: "df-memory-hang-" });
  const server = await startFakeOpenAIServer({
    script: (body): FakeStep =>
      JSON.stringify(body.messages).includes("long-term memory") ? { hang: {} } : { content: "Noted." },
  });
  try {
    writeFileSync(
      path.join(dir.path, "config.yaml"),
      `${modelYaml(server.url)}title: {enabled: false}\nmemory: {debounce_seconds: 0}\nllm_call: {memory_timeout_seconds: 2}\n`,
    );
    const run = startDeerflow(dir.path, ["run", "I prefer TypeScript."]);
    const ended = await Promise.race([
      run.exited,
      new Promise((resolve) => setTimeout(() => resolve("still running"), 40_000)),
    ]);
    if (ended === "still running") run.child.kill("SIGKILL");
    assert.deepEqual(ended, { code: 0, signal: null }, run.stderr);
    assert.equal(run.stdout, "Noted.\n");
    assert.ok(
      server.requests.some((request) => JSON.stringify(request.messages).includes("long-term memory")),
      "the memory call was made",
    );
    assert.match(run.stderr, /Memory update .*skipped/);
  } finally {
    await server.close();
    dir.cleanup();
  }
});
