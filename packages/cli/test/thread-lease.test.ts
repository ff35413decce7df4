/**
 * Two `deerflow run --thread T` processes at once: the second must not run beside the first (it would
 * overwrite the first turn's checkpoint). Without --wait it says who holds the thread; with --wait it
 * runs after the first, and both turns are kept.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { deerflow, startDeerflow } from "./run-cli.js";
import { createTempHome, type FakeStep, startFakeOpenAIServer } from "@deerflow/harness/testing";

test("a second run on a busy thread is refused or waits; no turn is lost", async () => {
  const dir = createTempHome({ prefix: "df-lease-" });
  let release: () => void = () => {};
  const blocked = new Promise<void>((resolve) => (release = resolve));
  const server = await startFakeOpenAIServer({
    script: async (body): Promise<FakeStep> => {
      const last = JSON.stringify(body.messages.at(-1)?.content ?? "");
      if (last.includes("first task again")) return new Promise<FakeStep>(() => {}); // never answers
      if (last.includes("first task")) {
        await blocked;
        return { content: "First answer." };
      }
      return { content: "Second answer." };
    },
  });
  try {
    writeFileSync(
      path.join(dir.path, "config.yaml"),
      `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk, base_url: '${server.url}', max_retries: 0}\nsandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\n`,
    );
    const first = startDeerflow(dir.path, ["run", "--thread", "T", "first task"]);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));

    const refused = await deerflow(dir.path, ["run", "--thread", "T", "second task"]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, new RegExp(`Thread T is busy \\(pid ${first.child.pid}, since \\d{4}-`));
    assert.equal(server.requests.length, 1, "the refused run must not call the model");

    const waiting = startDeerflow(dir.path, ["run", "--thread", "T", "--wait", "60", "second task"]);
    await waiting.waitForStderr(/waiting: thread T is busy/);
    release();
    assert.equal((await first.exited).code, 0, first.stderr);
    assert.equal((await waiting.exited).code, 0, waiting.stderr);
    assert.equal(waiting.stdout.trim(), "Second answer.");

    const history = await deerflow(dir.path, ["history", "--thread", "T"]);
    for (const text of ["first task", "First answer.", "second task", "Second answer."])
      assert.match(history.stdout, new RegExp(text));

    // A run killed outright (no release) does not keep the thread busy: its dead pid's lease is taken over.
    const killed = startDeerflow(dir.path, ["run", "--thread", "T", "first task again"]);
    while (server.requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    killed.child.kill("SIGKILL");
    await killed.exited;
    const after = await deerflow(dir.path, ["run", "--thread", "T", "third task"]);
    assert.equal(after.code, 0, after.stderr);
    assert.equal(after.stdout.trim(), "Second answer.");
  } finally {
    release();
    await server.close();
    dir.cleanup();
  }
});
