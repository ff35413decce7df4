/**
 * What the CLI prints from untrusted text: escape sequences from the model, tools and titles are
 * neutralised, and subagent progress shows each step's text.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ChatCompletionRequest, type FakeStep, startFakeOpenAIServer } from "@deerflow/harness/testing";
import { fakeModelProjects } from "./fake-projects.js";
import { deerflow } from "./run-cli.js";

const dirWith = fakeModelProjects("df-term-", "memory: {enabled: false}\n").withModel;

const ESC = "\x1b";

test("escape sequences in model text, tool output and titles never reach the terminal raw", async () => {
  const file = "/mnt/user-data/workspace/a.txt";
  const server = await startFakeOpenAIServer({
    script: (body: ChatCompletionRequest): FakeStep => {
      if (!body.tools?.length) return { content: `${ESC}]0;owned${ESC}\\\\Title` }; // the title model
      const results = body.messages.filter((message) => message.role === "tool").length;
      if (results === 0)
        return {
          content: `Writing ${ESC}[2J`,
          tool_calls: [
            { name: "write_file", arguments: { description: "write it", path: file, content: `${ESC}[31mred\x07\n` } },
          ],
        };
      if (results === 1)
        return { tool_calls: [{ name: "read_file", arguments: { description: "read it", path: file } }] };
      return { content: `Done ${ESC}]52;c;cGF5bG9hZA==\x07 \x9b31m` };
    },
  });
  try {
    const cwd = dirWith(server.url, "title: {enabled: true}\n");
    const run = await deerflow(cwd, ["run", `Write ${ESC}[5m a file`]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stdout.includes(ESC) && !run.stdout.includes("\x9b"), JSON.stringify(run.stdout));
    assert.ok(!run.stderr.includes(ESC) && !run.stderr.includes("\x07"), JSON.stringify(run.stderr));
    assert.match(run.stdout, /Done \^\[\]52;c;cGF5bG9hZA==\^G/);
    assert.match(run.stderr, /← .*\^\[\[31mred\^G/);
    const threads = await deerflow(cwd, ["threads"]);
    assert.ok(!threads.stdout.includes(ESC), JSON.stringify(threads.stdout));
    const history = await deerflow(cwd, ["history", "--thread", /thread: ([\w-]+)/.exec(run.stderr)![1]!]);
    assert.ok(!history.stdout.includes(ESC), JSON.stringify(history.stdout));
  } finally {
    await server.close();
  }
});

test("subagent progress prints each step's text", async () => {
  const isSubagent = (body: ChatCompletionRequest) =>
    JSON.stringify(body.messages[0]?.content ?? "").includes("You are a subagent");
  let subagentCalls = 0;
  const server = await startFakeOpenAIServer({
    script: (body): FakeStep => {
      if (isSubagent(body)) {
        subagentCalls += 1;
        if (subagentCalls === 1)
          return {
            content: "Checking the pricing pages first.",
            tool_calls: [{ name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } }],
          };
        return { content: "Provider A costs 3 USD per million tokens." };
      }
      if (body.messages.some((message) => message.role === "tool")) return { content: "A is cheaper." };
      return {
        tool_calls: [
          {
            name: "task",
            arguments: { description: "Price A", prompt: "Find A's price", subagent_type: "general-purpose" },
          },
        ],
      };
    },
  });
  try {
    const run = await deerflow(dirWith(server.url, "title: {enabled: false}\n"), [
      "run",
      "--subagents",
      "Compare prices",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /running: Checking the pricing pages first\. → ls/);
    assert.match(run.stderr, /running: ← ls: /);
    assert.match(run.stderr, /running: Provider A costs 3 USD per million tokens\./);
    assert.doesNotMatch(run.stderr, /running: ""/);
  } finally {
    await server.close();
  }
});
