import assert from "node:assert/strict";
import { before, test } from "node:test";
import { HumanMessage } from "@langchain/core/messages";
import type { ModelEntry } from "../config/schema.js";
import { startFakeOpenAIServer, type FakeStep } from "../testing/index.js";
import { loadChatModelProviders } from "./chat-model-providers.js";
import { createChatModel } from "./create-chat-model.js";
import { timerMs, MAX_TIMER_MS } from "./deadline-fetch.js";

const entryFor = (url: string, timeout?: number): ModelEntry => ({
  name: "slowpoke",
  use: "openai",
  model: "fake-model",
  api_key: "x",
  base_url: url,
  supports_thinking: false,
  supports_vision: false,
  ...(timeout ? { timeout } : {}),
});

before(() => loadChatModelProviders([{ use: "openai" }]));

async function callWith(step: FakeStep, options: { stream?: boolean; timeoutSeconds?: number } = {}) {
  const server = await startFakeOpenAIServer({ script: [step] });
  try {
    const model = createChatModel(entryFor(server.url), { timeoutSeconds: options.timeoutSeconds ?? 5 });
    if (options.stream) {
      let text = "";
      for await (const chunk of await model.stream([new HumanMessage("hi")])) text += chunk.text;
      return { text, server };
    }
    return { text: (await model.invoke([new HumanMessage("hi")])).text, server };
  } finally {
    await server.close();
  }
}

const errorOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  assert.fail("the call should have failed");
};

test("a 200 whose body trickles for ever fails at the deadline, naming the model and endpoint", async () => {
  const error = await errorOf(callWith({ hang: {} }, { timeoutSeconds: 0.4 }));
  assert.match(
    error.message,
    /Model "slowpoke" at http:\/\/127\.0\.0\.1:\d+\/v1 did not finish its answer within 0\.4 s/,
  );
});

test("a streamed answer that trickles for ever fails at the deadline too", async () => {
  const error = await errorOf(callWith({ hang: {} }, { stream: true, timeoutSeconds: 0.4 }));
  assert.match(error.message, /did not finish its answer within 0\.4 s/);
});

test("a 200 with an HTML page, {} or cut-off JSON gets an error saying what came back", async () => {
  const html = await errorOf(
    callWith({ raw: { contentType: "text/html", body: "<html><body>Please log in</body></html>" } }),
  );
  assert.match(
    html.message,
    /Model "slowpoke" at http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 200 with an HTML page \("<html><body>Please log in/,
  );
  const empty = await errorOf(callWith({ raw: { body: "{}" } }));
  assert.match(empty.message, /answered HTTP 200 with JSON without "choices" \("\{\}"\)/);
  const cut = await errorOf(callWith({ raw: { body: '{"id":"x","choices":[{"mess' } }));
  assert.match(cut.message, /answered HTTP 200 with invalid or cut-off JSON/);
  const streamedHtml = await errorOf(
    callWith({ raw: { contentType: "text/html", body: "<!doctype html><title>Gateway</title>" } }, { stream: true }),
  );
  assert.match(streamedHtml.message, /answered HTTP 200 with an HTML page/);
});

test("a 200 whose choices list is empty fails with a message saying the provider sent no answer", async () => {
  const error = await errorOf(callWith({ content: "dropped", no_choices: true }));
  assert.match(
    error.message,
    /^Model "slowpoke" at http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 200 with an empty "choices" list \(.*\): the provider sent no answer/,
  );
});

test("an answer delivered in many pieces passes through whole, streamed or not", async () => {
  const text = "分块到达的回答 🚀 ".repeat(2000);
  assert.equal((await callWith({ content: text })).text, text);
  assert.equal((await callWith({ content: text }, { stream: true })).text, text);
});

test("a normal answer passes through, streamed or not", async () => {
  assert.equal((await callWith({ content: "hello there" })).text, "hello there");
  assert.equal((await callWith({ content: "streamed hello" }, { stream: true })).text, "streamed hello");
});

test("delays past Node's timer limit are clamped instead of firing at once", () => {
  assert.equal(timerMs(30 * 24 * 3600 * 1000), MAX_TIMER_MS);
  assert.equal(timerMs(-5), 0);
});

test("a server that never even sends headers fails at the deadline with the same error", async () => {
  const { createServer } = await import("node:http");
  const server = createServer(() => {}); // accepts and never answers
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  try {
    const model = createChatModel(entryFor(`http://127.0.0.1:${port}/v1`), { timeoutSeconds: 0.3 });
    const error = await errorOf(model.invoke([new HumanMessage("hi")]));
    assert.match(
      error.message,
      /Model "slowpoke" at http:\/\/127\.0\.0\.1:\d+\/v1 did not finish its answer within 0\.3 s/,
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
