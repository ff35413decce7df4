import assert from "node:assert/strict";
import { test } from "node:test";
import { createLeadAgent } from "../../src/agent/create-lead-agent.js";
import { parseConfigText } from "../../src/config/load-config.js";
import {
  createTempHome,
  type FakeStep,
  startFakeAnthropicServer,
  startFakeOpenAIServer,
} from "../../src/testing/index.js";

const configFor = (url: string, use = "openai", llmCall = "") =>
  parseConfigText(
    `models:\n  - {name: fake, use: ${use}, model: fake-model, api_key: x, base_url: '${url}'}\n` +
      "memory: {enabled: false}\ntitle: {enabled: false}\nsandbox: {use: local}\n" +
      `llm_call: {retry_base_delay_ms: 5, retry_cap_delay_ms: 10, max_retries: 1${llmCall}}\n`,
    { source: "config.yaml", env: {} },
  );

interface Turn {
  answer: string;
  messages: { type: string; text: string; id?: string }[];
  error?: Error;
  requests: { messages?: { role: string; content: unknown }[] }[];
}

/** Runs `turns` user messages on one thread through a real lead agent, ChatOpenAI (or ChatAnthropic) and the fake server. */
async function runTurns(
  script: FakeStep[],
  turns: number,
  options: { use?: string; llmCall?: string; streamed?: boolean } = {},
) {
  const home = createTempHome();
  const server =
    options.use === "anthropic" ? await startFakeAnthropicServer({ script }) : await startFakeOpenAIServer({ script });
  const agent = await createLeadAgent(configFor(server.url, options.use, options.llmCall), {
    home: home.path,
    env: {},
    onWarning: () => {},
  });
  const results: Turn[] = [];
  try {
    for (let turn = 0; turn < turns; turn += 1) {
      try {
        const input = { messages: [{ role: "user", content: `hello ${turn}` }] };
        let out = { messages: [] as unknown[] };
        if (options.streamed) {
          // Token streaming makes langchain call the model's stream path, as a server run with `messages` does.
          const stream = await agent.stream(input, {
            configurable: { thread_id: "t" },
            streamMode: ["messages", "values"],
          });
          for await (const [mode, chunk] of stream as AsyncIterable<[string, typeof out]>)
            if (mode === "values") out = chunk;
        } else {
          out = await agent.invoke(input, { configurable: { thread_id: "t" } });
        }
        const messages = (out.messages as { type: string; text: string; id?: string }[]).map((m) => ({
          type: m.type,
          text: m.text,
          id: m.id,
        }));
        results.push({ answer: messages.at(-1)!.text, messages, requests: server.requests as Turn["requests"] });
      } catch (error) {
        results.push({
          answer: "",
          messages: [],
          error: error as Error,
          requests: server.requests as Turn["requests"],
        });
      }
    }
  } finally {
    await agent.close();
    await server.close();
    home.cleanup();
  }
  return results;
}

const lastUserText = (request: Turn["requests"][number]) => {
  const content = request.messages?.filter((m) => m.role === "user").at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
};

test("an answer cut at the output limit is continued and arrives whole, as one message", async () => {
  const [turn] = await runTurns(
    [{ content: "The three colours are red, ", finish_reason: "length" }, { content: "green and blue." }],
    1,
  );
  assert.equal(turn!.error, undefined);
  assert.equal(turn!.answer, "The three colours are red, green and blue.");
  assert.deepEqual(
    turn!.messages.map((m) => m.type),
    ["human", "ai"],
    "the hidden continuation request is not kept in the thread",
  );
  assert.match(lastUserText(turn!.requests[1]!), /cut off by the output token limit/);
});

test("a streamed answer cut at the output limit is continued too (the finish reason survives streaming)", async () => {
  for (const use of ["openai", "anthropic"]) {
    const [turn] = await runTurns([{ content: "Streamed and ", finish_reason: "length" }, { content: "whole." }], 1, {
      use,
      streamed: true,
    });
    assert.equal(turn!.error, undefined, use);
    assert.equal(turn!.answer, "Streamed and whole.", use);
  }
});

test("an answer still cut after the allowed continuations ends with a note saying so", async () => {
  const [turn] = await runTurns(
    [
      { content: "a", finish_reason: "length" },
      { content: "b", finish_reason: "length" },
    ],
    1,
    { llmCall: ", max_length_continuations: 1" },
  );
  assert.equal(turn!.requests.length, 2);
  assert.match(turn!.answer, /^ab\n\n\[This answer was cut off: model "fake" reached its output token limit/);
});

test("an Anthropic answer stopped for max_tokens is continued too", async () => {
  const [turn] = await runTurns([{ content: "Half of the ", finish_reason: "length" }, { content: "answer." }], 1, {
    use: "anthropic",
  });
  assert.equal(turn!.error, undefined);
  assert.equal(turn!.answer, "Half of the answer.");
});

test("a content-filtered answer with no text is explained, and its cut tool call does not run", async () => {
  const [turn] = await runTurns(
    [
      {
        tool_calls: [{ name: "write_file", arguments: { path: "/mnt/user-data/outputs/a.md" } }],
        finish_reason: "content_filter",
      },
    ],
    1,
  );
  assert.equal(turn!.requests.length, 1);
  assert.match(turn!.answer, /stopped this answer with a safety signal \(finish_reason: content_filter\)/);
  assert.match(turn!.answer, /tool call was not run/);
  assert.ok(!turn!.messages.some((m) => m.type === "tool"));
});

test("an empty answer is asked for once more; a second empty one is replaced by a clear message", async () => {
  const [retried, replaced] = await runTurns(
    [{ content: "" }, { content: "Here it is." }, { content: "" }, { content: "" }],
    2,
  );
  assert.equal(retried!.answer, "Here it is.");
  assert.match(lastUserText(retried!.requests[1]!), /Your previous reply was empty/);
  assert.match(replaced!.answer, /^\[Model "fake" returned an empty answer twice/);
  assert.deepEqual(
    replaced!.messages.map((m) => m.type),
    ["human", "ai", "human", "ai"],
  );
});

test("a provider failing call after call is paused: the next run fails at once, naming the model and when it is tried again", async () => {
  const down = { status: 503 } as const;
  const turns = await runTurns([down, down, down, down, { content: "never sent" }], 3, {
    llmCall: ", circuit_failure_threshold: 2, circuit_cooldown_seconds: 120",
  });
  assert.ok(turns[0]!.error && turns[1]!.error, "two runs fail after their retries");
  assert.equal(turns[1]!.requests.length, 4, "each failed run sent its call and one retry");
  const paused = turns[2]!;
  assert.equal(paused.requests.length, 4, "the paused run sent nothing");
  assert.match(
    paused.error!.message,
    /^Model "fake" is paused: its last 2 calls failed even after retries \(last: server \(HTTP 503\)\)\. It will be tried again at \d\d:\d\d:\d\d UTC \(in 1[12]\d s\)/,
  );
});
