/**
 * Ctrl-C during a delegated run: the built CLI gets SIGINT while two subagents wait on the model.
 * Both must be recorded as cancelled, and the thread must continue with a later `--thread` run.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { CLI, cliEnv, deerflow } from "./run-cli.js";
import { type ChatCompletionRequest, createTempHome, type FakeStep, startFakeOpenAIServer } from "../../harness/src/testing/index.js";

const isSubagent = (body: ChatCompletionRequest) => JSON.stringify(body.messages[0]?.content ?? "").includes("You are a subagent");

test("Ctrl-C cancels both running subagents and leaves the thread resumable", async () => {
  const dir = createTempHome({ prefix: "df-interrupt-" });
  let releaseSubagents: () => void = () => {};
  const subagentsBlocked = new Promise<void>((resolve) => (releaseSubagents = resolve));
  let leadCalls = 0;
  const server = await startFakeOpenAIServer({
    script: async (body): Promise<FakeStep> => {
      if (isSubagent(body)) {
        await subagentsBlocked;
        return { content: "too late" };
      }
      leadCalls += 1;
      if (leadCalls === 1) {
        return {
          tool_calls: [
            { name: "task", arguments: { description: "Research A", prompt: "Research provider A", subagent_type: "general-purpose" } },
            { name: "task", arguments: { description: "Research B", prompt: "Research provider B", subagent_type: "general-purpose" } },
          ],
        };
      }
      return { content: "Continuing after the interruption." };
    },
  });
  try {
    writeFileSync(
      path.join(dir.path, "config.yaml"),
      `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk, base_url: '${server.url}', max_retries: 0}\nsandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\n`,
    );
    const env = cliEnv(dir.path);
    const child = spawn(process.execPath, [CLI, "run", "--subagents", "Compare providers A and B"], { cwd: dir.path, env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    await new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
        if ((stderr.match(/started: Research/g) ?? []).length === 2) resolve();
      });
    });
    child.kill("SIGINT");
    const code = await exited;
    releaseSubagents();
    assert.equal(code, 1, stderr);
    assert.match(stderr, /Interrupted\. The thread is saved/);
    const thread = /thread: ([\w-]+)/.exec(stderr)![1]!;

    const history = await deerflow(dir.path, ["history", "--thread", thread]);
    assert.equal((history.stdout.match(/tool task.*Task cancelled by user\./g) ?? []).length, 2, history.stdout);

    const resumed = await deerflow(dir.path, ["run", "--thread", thread, "go on"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout.trim(), "Continuing after the interruption.");
    assert.match(JSON.stringify(server.requests.at(-1)!.messages), /Task cancelled by user/);
  } finally {
    releaseSubagents();
    await server.close();
    dir.cleanup();
  }
});
