/**
 * Ctrl-C during a delegated run: the built CLI gets SIGINT while two subagents wait on the model.
 * Both must be recorded as cancelled, and the thread must continue with a later `--thread` run.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { CLI, cliEnv, deerflow, startDeerflow } from "./run-cli.js";
import {
  type ChatCompletionRequest,
  createTempHome,
  type FakeStep,
  startFakeOpenAIServer,
} from "@deerflow/harness/testing";

const isSubagent = (body: ChatCompletionRequest) =>
  JSON.stringify(body.messages[0]?.content ?? "").includes("You are a subagent");

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
            {
              name: "task",
              arguments: { description: "Research A", prompt: "Research provider A", subagent_type: "general-purpose" },
            },
            {
              name: "task",
              arguments: { description: "Research B", prompt: "Research provider B", subagent_type: "general-purpose" },
            },
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
    const child = spawn(process.execPath, [CLI, "run", "--subagents", "Compare providers A and B"], {
      cwd: dir.path,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
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

/** A config tool that never returns and ignores cancellation (it even keeps a timer alive). */
function writeHangingTool(dir: string): void {
  writeFileSync(
    path.join(dir, "hang.mjs"),
    `import { tool } from ${JSON.stringify(import.meta.resolve("langchain"))};\n` +
      `import { z } from ${JSON.stringify(import.meta.resolve("zod"))};\n` +
      `export const hang = tool(async () => { setInterval(() => {}, 1000); await new Promise(() => {}); return "never"; }, { name: "hang", description: "Hangs.", schema: z.object({}) });\n`,
  );
}

test("Ctrl-C ends the CLI even when a tool ignores cancellation", async () => {
  const dir = createTempHome({ prefix: "df-interrupt-" });
  const server = await startFakeOpenAIServer({
    script: [{ tool_calls: [{ name: "hang", arguments: {} }] }, { content: "after" }],
  });
  try {
    writeHangingTool(dir.path);
    writeFileSync(
      path.join(dir.path, "config.yaml"),
      `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk, base_url: '${server.url}', max_retries: 0}\nsandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\ntools:\n  - {name: hang, use: ./hang.mjs:hang}\n`,
    );
    const run = startDeerflow(dir.path, ["run", "go"]);
    await run.waitForStderr(/→ hang\(\)/);
    run.child.kill("SIGINT");
    const ended = await Promise.race([
      run.exited,
      // unref: the timer must not keep the file alive for 15 s after the CLI exited
      new Promise((resolve) => setTimeout(() => resolve("still running"), 15_000).unref()),
    ]);
    if (ended === "still running") run.child.kill("SIGKILL");
    assert.deepEqual(ended, { code: 1, signal: null }, run.stderr);
    assert.match(run.stderr, /Interrupted\. The thread is saved/);
  } finally {
    await server.close();
    dir.cleanup();
  }
});

/**
 * An MCP server that, told to stop, does not: it ignores the end of its stdin and SIGTERM (it leaves a
 * marker when told). It writes its pid beside itself, so the test can kill it afterwards.
 */
function writeStubbornMcpServer(dir: string, marker: string): string {
  const file = path.join(dir, "stubborn-mcp.mjs");
  writeFileSync(
    file,
    `import { existsSync, readFileSync, writeFileSync } from "node:fs";\n` +
      `import { McpServer } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/server/mcp.js"))};\n` +
      `import { StdioServerTransport } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/server/stdio.js"))};\n` +
      `const server = new McpServer({ name: "stubborn", version: "1.0.0" });\n` +
      `server.tool("noop", "Does nothing.", async () => ({ content: [{ type: "text", text: "ok" }] }));\n` +
      `process.on("SIGTERM", () => {});\n` +
      `writeFileSync(${JSON.stringify(path.join(dir, "stubborn-mcp.pid"))}, String(process.pid));\n` +
      `process.stdin.on("end", () => writeFileSync(${JSON.stringify(marker)}, "told to stop"));\n` +
      `setInterval(() => {}, 1000);\n` +
      `await server.connect(new StdioServerTransport());\n`,
  );
  return file;
}

test("a second Ctrl-C exits at once when the graceful shutdown hangs", async () => {
  const dir = createTempHome({ prefix: "df-interrupt-" });
  // The answer comes back; closing the run's services then waits on an MCP server that will not stop.
  const server = await startFakeOpenAIServer({ script: () => ({ content: "The answer." }) });
  const marker = path.join(dir.path, "mcp-told-to-stop");
  try {
    const mcp = writeStubbornMcpServer(dir.path, marker);
    writeFileSync(
      path.join(dir.path, "extensions_config.json"),
      JSON.stringify({ mcpServers: { stubborn: { type: "stdio", command: process.execPath, args: [mcp] } } }),
    );
    writeFileSync(
      path.join(dir.path, "config.yaml"),
      `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk, base_url: '${server.url}', max_retries: 0}\nsandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\n`,
    );
    const run = startDeerflow(dir.path, ["run", "Hello"]);
    while (!existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 50));
    run.child.kill("SIGINT");
    await run.waitForStderr(/interrupted: /);
    run.child.kill("SIGINT");
    const ended = await Promise.race([
      run.exited,
      // unref: the timer must not keep the file alive for 15 s after the CLI exited
      new Promise((resolve) => setTimeout(() => resolve("still running"), 15_000).unref()),
    ]);
    if (ended === "still running") run.child.kill("SIGKILL");
    assert.deepEqual(ended, { code: 130, signal: null }, run.stderr);
    assert.equal(run.stdout, "The answer.\n");
    assert.match(run.stderr, /exiting now/);
  } finally {
    // The CLI left at once, as asked; the server that would not stop is still running: end it here.
    const pidFile = path.join(dir.path, "stubborn-mcp.pid");
    if (existsSync(pidFile)) {
      try {
        process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
      } catch {
        // already gone
      }
    }
    await server.close();
    dir.cleanup();
  }
});
