import { test } from "node:test";
import assert from "node:assert/strict";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, tool, AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "langchain";
import { z } from "zod";
import { startFakeOpenAIServer, type FakeOpenAIServerOptions, type FakeOpenAIServer } from "./fake-openai-server.js";

const echoArgs: string[] = [];
const echo = tool(
  async ({ text }) => {
    echoArgs.push(text);
    return `echo: ${text}`;
  },
  { name: "echo", description: "Echo the text back.", schema: z.object({ text: z.string() }) },
);
const user = (content: string) => ({ messages: [{ role: "user", content }] });

async function withServer(
  options: FakeOpenAIServerOptions,
  body: (server: FakeOpenAIServer, model: ChatOpenAI) => Promise<void>,
) {
  const server = await startFakeOpenAIServer(options);
  const model = new ChatOpenAI({ model: "fake", apiKey: "x", maxRetries: 0, configuration: { baseURL: server.url } });
  try {
    await body(server, model);
  } finally {
    await server.close();
  }
}

const toolThenAnswer: FakeOpenAIServerOptions["script"] = [
  { tool_calls: [{ name: "echo", arguments: { text: "a long enough argument" } }] },
  { content: "The tool said hello back." },
];

function aiMessages(messages: BaseMessage[]): AIMessage[] {
  return messages.filter((m) => m.type === "ai") as AIMessage[];
}

test("ChatOpenAI runs a createAgent tool loop against the server (non-streaming)", async () => {
  echoArgs.length = 0;
  await withServer({ strict: true, script: toolThenAnswer }, async (server, model) => {
    const out = await createAgent({ model, tools: [echo] }).invoke(user("call echo"));

    assert.deepEqual(echoArgs, ["a long enough argument"]);
    assert.deepEqual(
      out.messages.map((m: BaseMessage) => m.type),
      ["human", "ai", "tool", "ai"],
      "the final answer must not replace the tool-call message",
    );
    const [first, last] = aiMessages(out.messages);
    assert.notEqual(first!.id, last!.id);
    assert.equal(last!.text, "The tool said hello back.");
    assert.ok(first!.usage_metadata!.output_tokens > 0 && last!.usage_metadata!.input_tokens > 0);

    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[0]!.stream ?? false, false);
    assert.deepEqual(
      server.requests[0]!.tools!.map((t) => t.function.name),
      ["echo"],
    );
    assert.deepEqual(
      server.requests[1]!.messages.map((m) => m.role),
      ["user", "assistant", "tool"],
    );
    assert.deepEqual(server.rejected, []);
    server.assertDone();
  });
});

test("ChatOpenAI streams tool-call deltas, text tokens and usage through createAgent", async () => {
  echoArgs.length = 0;
  await withServer({ strict: true, script: toolThenAnswer }, async (server, model) => {
    const agent = createAgent({ model, tools: [echo] });
    const tokens: string[] = [];
    let final: { messages: BaseMessage[] } | undefined;
    for await (const event of await agent.stream(user("call echo"), { streamMode: ["messages", "values"] })) {
      if (event[0] === "values") final = event[1];
      else if (event[1][0].type === "ai") tokens.push(event[1][0].text);
    }

    assert.deepEqual(echoArgs, ["a long enough argument"], "arguments reassembled from several deltas");
    assert.ok(server.requests.every((r) => r.stream === true && r.stream_options?.include_usage === true));
    assert.equal(tokens.join(""), "The tool said hello back.");
    assert.ok(
      tokens.filter(Boolean).length > 1,
      `expected the answer in several tokens, got ${JSON.stringify(tokens)}`,
    );

    const ai = aiMessages(final!.messages);
    assert.deepEqual(
      final!.messages.map((m) => m.type),
      ["human", "ai", "tool", "ai"],
    );
    assert.equal(new Set(ai.map((m) => m.id)).size, 2);
    assert.equal(ai[0]!.tool_calls![0]!.name, "echo");
    assert.ok(ai[1]!.usage_metadata!.total_tokens > 0, "usage from the final stream chunk");
    assert.deepEqual(server.rejected, []);
  });
});

test("invalid JSON arguments reach the client as an invalid tool call, streaming or not", async () => {
  const bad = { tool_calls: [{ name: "echo", arguments: "{not json" }] };
  await withServer({ script: [bad, bad] }, async (_server, model) => {
    const whole = await model.invoke([new HumanMessage("go")]);
    assert.equal(whole.tool_calls!.length, 0);
    assert.equal(whole.invalid_tool_calls![0]!.args, "{not json");

    let streamed: AIMessage | undefined;
    for await (const chunk of await model.stream([new HumanMessage("go")]))
      streamed = streamed ? (streamed as any).concat(chunk) : chunk;
    assert.equal(streamed!.tool_calls!.length, 0);
    assert.equal((streamed as any).invalid_tool_calls[0].args, "{not json");
  });
});

test("each completion gets a unique id", async () => {
  await withServer({ script: [{ content: "a" }, { content: "b" }, { content: "c" }] }, async (_server, model) => {
    const ids = [];
    for (const text of ["1", "2"]) ids.push((await model.invoke([new HumanMessage(text)])).id);
    for await (const chunk of await model.stream([new HumanMessage("3")])) if (chunk.id) ids.push(chunk.id);
    assert.equal(new Set(ids).size, 3, `ids: ${ids.join(", ")}`);
  });
});

test("strict mode answers OpenAI's 400 for an unanswered tool call and ChatOpenAI surfaces it", async () => {
  await withServer({ strict: true, script: [{ content: "never sent" }] }, async (server, model) => {
    const dangling = [
      new HumanMessage("go"),
      new AIMessage({ content: "", tool_calls: [{ name: "echo", args: { text: "x" }, id: "call_dangling" }] }),
      new HumanMessage("are you there?"),
    ];
    await assert.rejects(model.invoke(dangling), (error: Error & { status?: number }) => {
      assert.equal(error.status, 400);
      assert.match(error.message, /must be followed by tool messages.*did not have response messages: call_dangling/);
      return true;
    });
    assert.equal(server.rejected.length, 1);
    assert.equal(server.rejected[0]!.index, 0);
    assert.equal(server.remaining, 1, "a rejected request uses no script step");
  });
});

test("strict mode rejects a tool message that answers no preceding call", async () => {
  await withServer({ strict: true, script: [] }, async (server, model) => {
    const orphan = [new HumanMessage("go"), new ToolMessage({ content: "result", tool_call_id: "call_nowhere" })];
    await assert.rejects(model.invoke(orphan), /messages with role 'tool' must be a response to a preceeding message/);
    assert.equal(server.rejected.length, 1);
  });
});

test("scripted 401, 429 and 500 come back as HTTP errors in OpenAI's shape", async () => {
  const script = [{ status: 401 }, { status: 429, error: { message: "Slow down, test." } }, { status: 500 }];
  await withServer({ script }, async (server, model) => {
    for (const [status, pattern] of [
      [401, /Incorrect API key/],
      [429, /Slow down, test\./],
      [500, /server had an error/],
    ] as const) {
      await assert.rejects(model.invoke([new HumanMessage("hi")]), (error: Error & { status?: number }) => {
        assert.equal(error.status, status);
        assert.match(error.message, pattern);
        return true;
      });
    }
    const raw = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: [] }),
    });
    assert.equal(raw.status, 500);
    const body = (await raw.json()) as { error: Record<string, unknown> };
    assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "param", "type"]);
  });
});

test("an exhausted script answers 500 with a clear message and is recorded", async () => {
  await withServer({ script: [{ content: "only one" }] }, async (server, model) => {
    await model.invoke([new HumanMessage("first")]);
    await assert.rejects(model.invoke([new HumanMessage("second question")]), (error: Error & { status?: number }) => {
      assert.equal(error.status, 500);
      assert.match(
        error.message,
        /no reply for request #2: the script ran out after 1 step\(s\)\. Last message: \(user\) "second question"/,
      );
      return true;
    });
    assert.equal(server.unexpected.length, 1);
    assert.throws(() => server.assertDone(), /script ran out/);
  });
});

test("a script function sees each body and its step index", async () => {
  const script = (body: { messages: Array<{ content?: unknown }> }, index: number) => ({
    content: `${index}:${body.messages.at(-1)!.content}`,
  });
  await withServer({ script }, async (_server, model) => {
    assert.equal((await model.invoke([new HumanMessage("a")])).text, "0:a");
    assert.equal((await model.invoke([new HumanMessage("b")])).text, "1:b");
  });
});

test("GET /v1/models lists the model and unknown routes answer 404", async () => {
  await withServer({ script: [], model: "demo-model" }, async (server) => {
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ id: string }> };
    assert.deepEqual(
      models.data.map((m) => m.id),
      ["demo-model"],
    );
    assert.equal((await fetch(`${server.url}/embeddings`, { method: "POST", body: "{}" })).status, 404);
  });
});

test("assertDone reports steps that were never requested", async () => {
  await withServer({ script: [{ content: "a" }, { content: "b" }] }, async (server, model) => {
    await model.invoke([new HumanMessage("x")]);
    assert.throws(() => server.assertDone(), /1 scripted step\(s\) were never requested \(1 request\(s\) received\)/);
  });
});

test("streams are SSE frames ending with data: [DONE]", async () => {
  await withServer({ script: [{ content: "hi there" }] }, async (server) => {
    const res = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "x" }] }),
    });
    assert.match(res.headers.get("content-type")!, /text\/event-stream/);
    const frames = (await res.text()).split("\n\n").filter(Boolean);
    assert.equal(frames.at(-1), "data: [DONE]");
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.replace(/^data: /, "")));
    assert.ok(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === "m"));
    assert.equal(chunks.map((c) => c.choices[0].delta.content ?? "").join(""), "hi there");
  });
});

test("the server never closes an idle connection itself, so a client reusing one cannot race its close", async () => {
  // With Node's default the server announced `keep-alive: timeout=5` and closed idle sockets after 5 s; a
  // model call reusing one at that moment failed with UND_ERR_SOCKET (seen in the web benchmark).
  await withServer({ script: [{ content: "one" }, { content: "two" }] }, async (server) => {
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${server.url}/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model: "fake", messages: [{ role: "user", content: "hi" }] }),
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("connection"), "keep-alive");
      assert.equal(
        response.headers.get("keep-alive"),
        null,
        "no idle timeout announced: the client decides when to close",
      );
      await response.text();
    }
  });
});
