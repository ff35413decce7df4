/**
 * Ollama's native `/api/chat` (newline-delimited JSON), through a real lead agent and the real
 * ChatOllama client (`use: ollama` with `base_url` at the fake). ChatOllama always streams, so a run
 * invoked without streaming takes the same wire path; both are run.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { type FakeStep, longAnswers, startFakeOllamaServer } from "../../src/testing/index.js";
import { providerTurn } from "./provider-turn.js";

async function turn(t: test.TestContext, script: FakeStep[], streamed: boolean) {
  const server = await startFakeOllamaServer({ script });
  t.after(() => server.close());
  const entry = `name: local, use: ollama, model: llama-fake, base_url: '${server.url}', max_retries: 0, timeout: 30`;
  return { run: await providerTurn(t, entry, { streamed }), server };
}

for (const streamed of [false, true]) {
  const how = streamed ? "streamed" : "invoked";

  test(`a long answer in Chinese with emoji arrives whole (${how})`, { timeout: 60_000 }, async (t) => {
    const { run } = await turn(t, [{ content: longAnswers.chinese }], streamed);
    assert.equal(run.error, undefined, run.error?.message);
    assert.equal(run.answer?.text, longAnswers.chinese);
  });

  test(`thinking, a tool call, then the answer (${how})`, async (t) => {
    const { run, server } = await turn(
      t,
      [
        {
          reasoning: "Let me write it. 🤔",
          tool_calls: [
            {
              name: "write_file",
              arguments: { description: "Write it", path: "/mnt/user-data/workspace/o.txt", content: "本地模型 🚀" },
            },
          ],
        },
        { content: "Written locally." },
      ],
      streamed,
    );
    assert.equal(run.error, undefined, run.error?.message);
    assert.equal(run.answer?.text, "Written locally.");
    assert.equal(readFileSync(`${run.userData}/workspace/o.txt`, "utf8"), "本地模型 🚀");
    const first = run.messages.find((m) => m.type === "ai")!;
    assert.equal(first.additional_kwargs.reasoning_content, "Let me write it. 🤔");
    assert.equal(server.requests[1]!.messages.at(-1)!.role, "tool");
    server.assertDone();
  });
}
