/**
 * End-to-end scenarios of the built CLI against the fake OpenAI-compatible server: the "done when"
 * checks of the foundation, sandbox, context, memory and subagent issues, tried as a user would.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { type ChatCompletionRequest, type FakeStep, startFakeOpenAIServer } from "@deerflow/harness/testing";
import { fakeModelProjects, summaryOrAnswer } from "./fake-projects.js";
import { deerflow } from "./run-cli.js";

const projects = fakeModelProjects("df-scenario-");
const project = projects.withModel;

const threadOf = (stderr: string) => /thread: ([\w-]+)/.exec(stderr)![1]!;
/** Where a run's output file `name` lies on the host, for the thread the run's stderr names. */
const outputOnHost = (cwd: string, stderr: string, name: string) =>
  path.join(cwd, ".deer-flow", "threads", threadOf(stderr), "user-data", "outputs", name);
const systemText = (body: ChatCompletionRequest) =>
  body.messages
    .filter((m) => m.role === "system")
    .map((m) => JSON.stringify(m.content))
    .join("\n");
const isMemoryUpdate = (body: ChatCompletionRequest) =>
  systemText(body).includes("long-term memory that an AI assistant has about its user");

test("run --upload: the model reads the upload, writes a summary, presents it; the CLI shows the artifact", async () => {
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      {
        tool_calls: [
          { name: "read_file", arguments: { description: "read", path: "/mnt/user-data/uploads/notes.txt" } },
        ],
      },
      {
        tool_calls: [
          {
            name: "write_file",
            arguments: {
              description: "write",
              path: "/mnt/user-data/outputs/summary.md",
              content: "# Summary\nShip v1 on Friday.",
            },
          },
        ],
      },
      { tool_calls: [{ name: "present_files", arguments: { filepaths: ["/mnt/user-data/outputs/summary.md"] } }] },
      { content: "Summary written to summary.md." },
    ],
  });
  try {
    const cwd = project(server.url, "memory: {enabled: false}\ntitle: {enabled: false}\n");
    writeFileSync(path.join(cwd, "notes.txt"), "Meeting notes: ship v1 on Friday.");
    const result = await deerflow(cwd, [
      "run",
      "--upload",
      "notes.txt",
      "summarise the upload into a file and present it",
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(JSON.stringify(server.requests[0]!.messages), /current_uploads[\s\S]*notes\.txt/);
    assert.match(JSON.stringify(server.requests[1]!.messages), /Meeting notes: ship v1 on Friday\./);
    const hostPath = outputOnHost(cwd, result.stderr, "summary.md");
    assert.match(
      result.stderr,
      new RegExp(`artifacts:\\n  /mnt/user-data/outputs/summary\\.md -> ${hostPath.replace(/[.]/g, "\\.")}`),
    );
    assert.equal(readFileSync(hostPath, "utf8"), "# Summary\nShip v1 on Friday.");
    assert.equal(server.rejected.length, 0);
  } finally {
    await server.close();
  }
});

test("memory: what one run learns is in the next thread's system prompt and in `memory show`", async () => {
  const update = JSON.stringify({
    user: { workContext: { summary: "Works at Acme on payment APIs.", shouldUpdate: true } },
    newFacts: [
      { content: "Works at Acme on payment APIs", category: "context", confidence: 0.95 },
      { content: "Prefers TypeScript", category: "preference", confidence: 0.9 },
    ],
  });
  const server = await startFakeOpenAIServer({
    script: (body): FakeStep =>
      isMemoryUpdate(body) ? { content: `\`\`\`json\n${update}\n\`\`\`` } : { content: "Noted." },
  });
  try {
    const cwd = project(server.url, "title: {enabled: false}\n");
    const first = await deerflow(cwd, ["run", "I work at Acme on payment APIs and prefer TypeScript"]);
    assert.equal(first.code, 0, first.stderr);
    const second = await deerflow(cwd, ["run", "what do you know about me?"]);
    assert.equal(second.code, 0, second.stderr);
    const lastLeadRequest = server.requests.filter((body) => !isMemoryUpdate(body)).at(-1)!;
    assert.match(
      systemText(lastLeadRequest),
      /<memory>[\s\S]*Acme on payment APIs[\s\S]*Prefers TypeScript[\s\S]*<\/memory>/,
    );
    const shown = await deerflow(cwd, ["memory", "show"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /Works at Acme on payment APIs/);
    assert.match(shown.stdout, /Prefers TypeScript/);
    const other = await deerflow(cwd, ["memory", "show", "--agent", "other-agent"]);
    assert.doesNotMatch(other.stdout, /Acme/);
  } finally {
    await server.close();
  }
});

test("a clarifying question ends `run` with exit 3, and `chat` takes the answer on the same thread", async () => {
  const ask = {
    tool_calls: [
      {
        name: "ask_clarification",
        arguments: {
          question: "Which environment?",
          clarification_type: "approach_choice",
          options: ["staging", "production"],
        },
      },
    ],
  };
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [ask, ask, { content: "Deploying to staging." }],
  });
  try {
    const cwd = project(server.url, "memory: {enabled: false}\ntitle: {enabled: false}\n");
    const run = await deerflow(cwd, ["run", "deploy it"]);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stdout, /Which environment\?[\s\S]*1\. staging[\s\S]*2\. production/);

    const chat = await deerflow(cwd, ["chat"], { input: "deploy it\nstaging\n/exit\n" });
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stdout, /agent \(question\)> [\s\S]*Which environment\?/);
    assert.match(chat.stdout, /agent> Deploying to staging\./);
    const last = JSON.stringify(server.requests.at(-1)!.messages);
    assert.match(last, /Which environment\?[\s\S]*staging/);
    assert.equal(server.rejected.length, 0);
  } finally {
    await server.close();
  }
});

test("the demo model's plan-mode run completes its todos, presents its note and gets a title", async () => {
  const cwd = projects.empty();
  const result = await deerflow(cwd, ["run", "--plan", "--json", "Write about deer"]);
  assert.equal(result.code, 0, result.stderr);
  const output = JSON.parse(result.stdout) as { title: string; artifacts: string[]; todos: { status: string }[] };
  assert.deepEqual(output.artifacts, ["/mnt/user-data/outputs/note-write-about-deer.md"]);
  assert.ok(output.todos.length > 0 && output.todos.every((todo) => todo.status === "completed"));
  assert.equal(output.title, "Write about deer");
  assert.match(result.stderr, /todos:\n\s+\[~\]/);
  assert.match(result.stderr, /\[x\] Present the note/);
  assert.ok(existsSync(outputOnHost(cwd, result.stderr, "note-write-about-deer.md")));
});

test("`deerflow history` shows every message, including compacted ones, with a marker", async () => {
  const server = await startFakeOpenAIServer({
    strict: true,
    script: summaryOrAnswer,
  });
  try {
    const cwd = project(
      server.url,
      "memory: {enabled: false}\ntitle: {enabled: false}\nsummarization: {trigger: {type: messages, value: 4}, keep: {type: messages, value: 2}}\n",
    );
    const first = await deerflow(cwd, ["run", "Question one"]);
    const thread = threadOf(first.stderr);
    for (const question of ["Question two", "Question three", "Question four"]) {
      const next = await deerflow(cwd, ["run", "--thread", thread, question]);
      assert.equal(next.code, 0, next.stderr);
    }
    const history = await deerflow(cwd, ["history", "--thread", thread]);
    assert.equal(history.code, 0, history.stderr);
    for (const question of ["Question one", "Question two", "Question three", "Question four"])
      assert.match(history.stdout, new RegExp(`user: ${question}`));
    assert.match(history.stdout, /──── compacted \d+ messages at /);
    assert.equal(server.rejected.length, 0);
  } finally {
    await server.close();
  }
});
