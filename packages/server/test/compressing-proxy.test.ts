/**
 * Streams through a compressing proxy. DeerFlow's frontend reaches the server through Next.js, whose
 * built-in gzip (the `compression` middleware) holds a compressible response back until the zlib buffer
 * fills or the response ends: the user saw no token and their own message twice for the whole run. The
 * middleware leaves alone any response whose `Cache-Control` says `no-transform`; these tests put that
 * middleware between the official SDK and the server and check that events arrive while the model is
 * still answering, on every streaming route.
 */
import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { Client } from "@langchain/langgraph-sdk";
import compression from "compression";
import { gate, parseSse, readSse, startTestServer, type TestServer } from "./helpers.js";

/** A reverse proxy that gzips what it forwards, as `next start` does; it records what clients asked for. */
async function startCompressingProxy(
  target: string,
): Promise<{ url: string; acceptEncodings: string[]; close(): Promise<void> }> {
  const upstream = new URL(target);
  const compress = compression();
  const acceptEncodings: string[] = [];
  const server: Server = createServer((req, res) => {
    acceptEncodings.push(String(req.headers["accept-encoding"] ?? ""));
    compress(req as never, res as never, () => {
      // The proxy alone compresses: the server is asked for identity, as a proxy that transforms would.
      const headers = { ...req.headers, host: upstream.host, "accept-encoding": "identity" };
      const forward = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on("error", () => res.destroy());
      res.on("close", () => forward.destroy());
      req.pipe(forward);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    acceptEncodings,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A model whose first call narrates and calls `ls`, and whose second call (the answer) waits until the
 * test opens `answer`. Proving that nothing arrived needs a bound: after `boundMs` a watchdog opens the
 * gate itself, so the buggy case fails with a message instead of hanging.
 */
function slowAnswer(boundMs = 20_000) {
  const answer = gate();
  let openedBy: "client" | "watchdog" | undefined;
  const watchdog = setTimeout(() => {
    openedBy ??= "watchdog";
    answer.open();
  }, boundMs);
  return {
    script: async (body: { messages: Array<{ role: string }> }) => {
      if (!body.messages.some((message) => message.role === "tool"))
        return {
          content: "Let me look at the workspace.",
          tool_calls: [{ name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } }],
        };
      await answer.wait;
      return { content: "The workspace is empty." };
    },
    /** The client saw what it needed while the answer was still being produced. */
    clientSaw() {
      openedBy ??= "client";
      clearTimeout(watchdog);
      answer.open();
    },
    get openedBy() {
      return openedBy;
    },
  };
}

/** Whether raw SSE text holds a `messages` event (a piece of the model's first step). */
const sawMessageEvent = (text: string) => parseSse(text).some((frame) => frame.event === "messages");

async function withProxy(
  model: ReturnType<typeof slowAnswer>,
  body: (t: TestServer, proxy: Awaited<ReturnType<typeof startCompressingProxy>>) => Promise<void>,
): Promise<void> {
  const t = await startTestServer({ script: model.script });
  const proxy = await startCompressingProxy(t.url);
  try {
    await body(t, proxy);
  } finally {
    model.clientSaw();
    await proxy.close();
    await t.close();
  }
}

test("runs/stream through a gzip proxy: the SDK gets the user's message and the model's first step while the answer is still coming", async () => {
  const model = slowAnswer();
  await withProxy(model, async (t, proxy) => {
    // The SDK's fetch offers gzip by itself, as a browser does (asserted below).
    const client = new Client({ apiUrl: proxy.url, apiKey: null });
    const thread = await client.threads.create();
    const seen: string[] = [];
    let narration = "";
    let sawUserMessage = false;
    for await (const part of client.runs.stream(thread.thread_id, "lead_agent", {
      input: { messages: [{ role: "user", content: "What is in the workspace?" }] },
      streamMode: ["values", "messages-tuple"],
    })) {
      seen.push(part.event);
      if (part.event === "values") {
        const messages = (part.data as { messages?: Array<{ type: string }> }).messages ?? [];
        sawUserMessage ||= messages.some((message) => message.type === "human");
      }
      if (part.event === "messages") {
        const [chunk] = part.data;
        if (typeof chunk.content === "string") narration += chunk.content;
      }
      if (sawUserMessage && narration.includes("Let me look")) model.clientSaw();
    }
    assert.ok(
      proxy.acceptEncodings.every((value) => value.includes("gzip")),
      "the proxy was asked for gzip",
    );
    assert.equal(
      model.openedBy,
      "client",
      "the values event with the user's message and the model's first message events reached the client " +
        "before the model's answer: a compressing proxy buffered the stream",
    );
    assert.equal(seen.at(-1), "end");
    const state = await t.client.threads.getState(thread.thread_id);
    const last = (state.values as { messages: Array<{ content: string }> }).messages.at(-1);
    assert.equal(last?.content, "The workspace is empty.");
  });
});

test("the join stream (a reload in the middle of a run) passes a gzip proxy live", async () => {
  const model = slowAnswer();
  await withProxy(model, async (t, proxy) => {
    const thread = await t.client.threads.create();
    const run = await t.client.runs.create(thread.thread_id, "lead_agent", {
      input: { messages: [{ role: "user", content: "What is in the workspace?" }] },
      streamMode: ["values", "messages-tuple"],
    });
    // What DeerFlow's frontend does on a reload in the middle of a run (the SDK replays from the start).
    const joined = await fetch(
      `${proxy.url}/threads/${thread.thread_id}/runs/${run.run_id}/stream?cancel_on_disconnect=0`,
      {
        headers: { "last-event-id": "-1" },
      },
    );
    assert.equal(joined.status, 200);
    const text = await readSse(joined, sawMessageEvent);
    assert.ok(sawMessageEvent(text));
    model.clientSaw();
    assert.equal(model.openedBy, "client", "the rejoined stream's events arrived before the answer");
  });
});

test("the stateless runs/stream passes a gzip proxy live", async () => {
  const stateless = slowAnswer();
  await withProxy(stateless, async (_t, proxy) => {
    const response = await fetch(`${proxy.url}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        assistant_id: "lead_agent",
        input: { messages: [{ role: "user", content: "What is in the workspace?" }] },
        stream_mode: ["messages-tuple"],
      }),
    });
    assert.equal(response.status, 200);
    const text = await readSse(response, sawMessageEvent);
    stateless.clientSaw();
    assert.ok(sawMessageEvent(text));
    assert.equal(stateless.openedBy, "client", "the stateless stream's events arrived before the answer");
  });
});

test("runs/wait through a gzip proxy: its heartbeat reaches the client while the run goes on", async () => {
  const model = slowAnswer();
  await withProxy(model, async (t, proxy) => {
    const thread = await t.client.threads.create();
    const response = await fetch(`${proxy.url}/threads/${thread.thread_id}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        assistant_id: "lead_agent",
        input: { messages: [{ role: "user", content: "What is in the workspace?" }] },
      }),
    });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      // The first bytes of a waiting response are the heartbeat's newlines.
      if (text.length > 0 && text.trim() === "") model.clientSaw();
    }
    assert.equal(model.openedBy, "client", "a heartbeat passed the proxy before the run ended");
    const result = JSON.parse(text) as { messages: Array<{ content: string }> };
    assert.equal(result.messages.at(-1)?.content, "The workspace is empty.");
  });
});
