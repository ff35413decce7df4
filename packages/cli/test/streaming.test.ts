/**
 * The answer as a user sees it while it is produced: on a terminal, `run` and `chat` print the answer's
 * text as the model writes it, text written before a tool call is taken off the screen again, and what
 * stays is exactly the final message. Piped stdout and `--no-stream` get the final message once, whole.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ChatCompletionRequest, type FakeStep, startFakeOpenAIServer } from "@deerflow/harness/testing";
import { fakeModelProjects } from "./fake-projects.js";
import { startHeldStream } from "./held-stream.js";
import { ptyUnavailable, screenText, startOnTerminal } from "./pty.js";
import { deerflow } from "./run-cli.js";

const { withModel } = fakeModelProjects("df-stream-", "memory: {enabled: false}\n");
const noPty = ptyUnavailable();

const PREAMBLE = "Let me look at the workspace first.";
const FIRST = "The workspace is empty, so there is nothing to summarise yet.";
const SECOND = "Upload a file or name one, and I will summarise it.";
const ANSWER = `${FIRST}\n${SECOND}`;
const isTitle = (body: ChatCompletionRequest) => !body.tools?.length;

/** The lead model writes a preamble with a tool call, then the two-line answer; titles are "Workspace check". */
function leadScript(body: ChatCompletionRequest): FakeStep {
  if (isTitle(body)) return { content: "Workspace check" };
  if (!body.messages.some((message) => message.role === "tool"))
    return {
      content: PREAMBLE,
      tool_calls: [{ name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } }],
    };
  return { content: ANSWER };
}

test("on a terminal the answer streams: its first line is on screen while the model still writes the rest", {
  skip: noPty ?? false,
  timeout: 120_000,
}, async () => {
  const model = await startFakeOpenAIServer({ script: leadScript });
  const stream = await startHeldStream(model.url, "summarise yet.");
  try {
    const run = startOnTerminal(withModel(stream.url, "title: {enabled: true}\n"), ["run", "Summarise my files"]);
    const first = await Promise.race([stream.held.then(() => "held"), run.exited.then(() => "exited")]);
    assert.equal(first, "held", `the model's answer was streamed (and held halfway)\n${run.stderr()}`);
    // The model has sent the first line and waits; the CLI has printed it.
    await run.waitForOutput(/summarise yet\./);
    assert.doesNotMatch(run.output, /Upload a file/, "the rest is not written yet");
    stream.release();
    assert.equal(await run.exited, 0, run.stderr());
    assert.equal(screenText(run.output), `${ANSWER}\n`, "what stays on screen is the final message, once");
    assert.ok(run.output.includes(PREAMBLE), "the text before the tool call was shown while it was written");
    assert.match(run.stderr(), new RegExp(`· ${PREAMBLE}\\n→ ls\\(`), "and is in the progress, as before");
    assert.equal(
      model.requests.filter((body) => !isTitle(body)).every((body) => body.stream === true),
      true,
      "the lead model is called streamed",
    );
  } finally {
    await stream.close();
    await model.close();
  }
});

test("piped, the answer is the final message alone, printed once: no text from before the tool call, no title", async () => {
  const model = await startFakeOpenAIServer({ script: leadScript });
  try {
    const run = await deerflow(withModel(model.url, "title: {enabled: true}\n"), ["run", "Summarise my files"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${ANSWER}\n`);
    assert.ok(model.requests.some(isTitle), "a title was written (and not printed)");
  } finally {
    await model.close();
  }
});

test("--no-stream on a terminal prints the final message once, from a model called without streaming", {
  skip: noPty ?? false,
  timeout: 120_000,
}, async () => {
  const model = await startFakeOpenAIServer({ script: leadScript });
  try {
    const run = startOnTerminal(withModel(model.url, "title: {enabled: false}\n"), [
      "run",
      "--no-stream",
      "Summarise my files",
    ]);
    assert.equal(await run.exited, 0, run.stderr());
    assert.equal(run.output.replace(/\r\n/g, "\n"), `${ANSWER}\n`, "written whole: nothing shown and taken back");
    assert.equal(model.requests.length, 2);
    assert.ok(
      model.requests.every((body) => body.stream !== true),
      "an answer that arrives whole cannot be printed piece by piece",
    );
  } finally {
    await model.close();
  }
});

test("--json on a terminal does not stream: stdout is one JSON object with the final message", {
  skip: noPty ?? false,
  timeout: 120_000,
}, async () => {
  const model = await startFakeOpenAIServer({ script: leadScript });
  try {
    const run = startOnTerminal(withModel(model.url, "title: {enabled: false}\n"), [
      "run",
      "--json",
      "Summarise my files",
    ]);
    assert.equal(await run.exited, 0, run.stderr());
    const output = JSON.parse(run.output) as { answer: string };
    assert.equal(output.answer, ANSWER);
    assert.ok(model.requests.every((body) => body.stream !== true));
  } finally {
    await model.close();
  }
});

test("a clarification on a terminal: the question is the answer on screen, and run exits 3", {
  skip: noPty ?? false,
  timeout: 120_000,
}, async () => {
  const model = await startFakeOpenAIServer({
    script: [
      {
        content: "I need to know one thing first.",
        tool_calls: [
          {
            name: "ask_clarification",
            arguments: { question: "Which environment?", clarification_type: "missing_info" },
          },
        ],
      },
    ],
  });
  try {
    const run = startOnTerminal(withModel(model.url, "title: {enabled: false}\n"), ["run", "Deploy it"]);
    assert.equal(await run.exited, 3, run.stderr());
    const screen = screenText(run.output);
    assert.match(screen, /Which environment\?/);
    assert.doesNotMatch(screen, /I need to know one thing first/);
  } finally {
    await model.close();
  }
});

test("chat on a terminal streams each answer after its prompt", {
  skip: noPty ?? false,
  timeout: 120_000,
}, async () => {
  const model = await startFakeOpenAIServer({
    script: (body): FakeStep => (isTitle(body) ? { content: "Greeting" } : { content: "Hello! How can I help today?" }),
  });
  const stream = await startHeldStream(model.url, "Hello!");
  try {
    const chat = startOnTerminal(withModel(stream.url, "title: {enabled: false}\n"), ["chat"]);
    await chat.waitForOutput(/you> /);
    chat.type("hi\r");
    const first = await Promise.race([stream.held.then(() => "held"), chat.exited.then(() => "exited")]);
    assert.equal(first, "held", `the model's answer was streamed (and held halfway)\n${chat.stderr()}`);
    await chat.waitForOutput(/agent> Hello!/);
    assert.doesNotMatch(chat.output, /How can I help/);
    stream.release();
    await chat.waitForOutput(/How can I help today\?\r\n(.|\n)*you> /);
    chat.type("/exit\r");
    assert.equal(await chat.exited, 0, chat.stderr());
    assert.match(screenText(chat.output), /^you> hi\nagent> Hello! How can I help today\?\nyou> \/exit\n$/);
  } finally {
    await stream.close();
    await model.close();
  }
});
