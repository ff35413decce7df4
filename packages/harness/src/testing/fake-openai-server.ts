/**
 * A local OpenAI-compatible HTTP server that plays back a script, so tests exercise the real
 * `ChatOpenAI` client end to end: request serialisation, SSE parsing, tool-call deltas, usage, retries
 * and HTTP errors. In `strict` mode it rejects unpaired tool calls with OpenAI's own 400, which is how a
 * test proves that a run never sends the history a real provider would refuse.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { preview } from "./ids.js";
import { findToolPairingError, type WireMessage } from "./openai-tool-pairing.js";
import {
  completionBody,
  errorBody,
  resolveReply,
  streamChunks,
  type FakeErrorReply,
  type FakeHangReply,
  type FakeRawReply,
  type FakeReply,
} from "./openai-replies.js";

/** One scripted answer: a reply, an HTTP error such as `{ status: 429 }`, a raw body, or a body that never ends. */
export type FakeStep = FakeReply | FakeErrorReply | FakeRawReply | FakeHangReply;

/** A chat-completions request body as received (only the fields the server reads are typed). */
export interface ChatCompletionRequest {
  model?: string;
  messages: Array<WireMessage & { content?: unknown; [key: string]: unknown }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: Array<{ type: string; function: { name: string; [key: string]: unknown } }>;
  [key: string]: unknown;
}

/** Options of {@link startFakeOpenAIServer}. */
export interface FakeOpenAIServerOptions {
  /** Steps used in order, or a function of the body and the step index (requests rejected in strict mode use no step). */
  script: FakeStep[] | ((body: ChatCompletionRequest, index: number) => FakeStep | Promise<FakeStep>);
  /** Answer HTTP 400, as OpenAI does, when tool calls and tool messages are not paired. Default false. */
  strict?: boolean;
  /** Model id listed by GET /v1/models. Default "fake". */
  model?: string;
  /**
   * The model's window in tokens (counted as 4 characters of the messages' JSON each). A larger request
   * gets OpenAI's 400 `context_length_exceeded`, uses no step and is listed in `rejected`. Default: none.
   */
  contextWindow?: number;
}

/** Tokens the fake server counts for a request: 4 characters of the messages' JSON each. */
export function fakeRequestTokens(body: ChatCompletionRequest): number {
  return Math.ceil(JSON.stringify(body.messages).length / 4);
}

/** A request the server refused or could not answer; `index` points into `requests`. */
export interface FakeServerIncident {
  index: number;
  status: number;
  message: string;
}

/** A running fake server. */
export interface FakeOpenAIServer {
  /** Base URL for `configuration.baseURL`, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  /** Every POST /v1/chat/completions body, in arrival order. */
  requests: ChatCompletionRequest[];
  /** Requests answered 400 by strict mode (unpaired tool calls). Assert it is empty to prove none were sent. */
  rejected: FakeServerIncident[];
  /** Requests that found the script exhausted (or whose script function threw), answered 500. */
  unexpected: FakeServerIncident[];
  /** Array steps not used yet (0 for a function script). */
  readonly remaining: number;
  /** Throws when steps remain unused or a request went unanswered by the script. */
  assertDone(): void;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

/**
 * Starts a fake OpenAI chat-completions server on 127.0.0.1 with an OS-chosen port.
 *
 * @example
 * ```ts
 * const server = await startFakeOpenAIServer({ strict: true, script: [
 *   { tool_calls: [{ name: "echo", arguments: { text: "hi" } }] },
 *   { content: "done" },
 * ] });
 * const model = new ChatOpenAI({ model: "fake", apiKey: "x", maxRetries: 0, configuration: { baseURL: server.url } });
 * try { ... } finally { await server.close(); }
 * ```
 */
export async function startFakeOpenAIServer(options: FakeOpenAIServerOptions): Promise<FakeOpenAIServer> {
  const { script, strict = false, model = "fake", contextWindow } = options;
  const requests: ChatCompletionRequest[] = [];
  const rejected: FakeServerIncident[] = [];
  const unexpected: FakeServerIncident[] = [];
  let stepIndex = 0;
  const remainingSteps = () => (typeof script === "function" ? 0 : Math.max(0, script.length - stepIndex));

  async function nextStep(body: ChatCompletionRequest, index: number): Promise<FakeStep> {
    const i = stepIndex++;
    try {
      if (typeof script === "function") {
        const step = await script(body, i);
        if (!step) throw new Error(`the script function returned ${String(step)} for step ${i}`);
        return step;
      }
      const step = script[i];
      if (step) return step;
      throw new Error(`the script ran out after ${script.length} step(s)`);
    } catch (error) {
      const last = body.messages.at(-1);
      const message =
        `Fake OpenAI server: no reply for request #${index + 1}: ${(error as Error).message}. ` +
        `Last message: (${last?.role ?? "none"}) "${preview(textOf(last?.content))}".`;
      unexpected.push({ index, status: 500, message });
      return { status: 500, error: { message, type: "server_error" } };
    }
  }

  async function chatCompletions(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: ChatCompletionRequest;
    try {
      body = JSON.parse(await readBody(req)) as ChatCompletionRequest;
      if (!Array.isArray(body.messages)) throw new Error("'messages' must be an array");
    } catch (error) {
      return sendJson(
        res,
        400,
        errorBody(400, { message: `Fake OpenAI server: bad request body: ${(error as Error).message}` }),
      );
    }
    const index = requests.push(body) - 1;

    const pairing = strict ? findToolPairingError(body.messages) : undefined;
    if (pairing) {
      rejected.push({ index, status: 400, message: pairing.message });
      return sendJson(res, 400, errorBody(400, { message: pairing.message, param: pairing.param }));
    }

    const tokens = fakeRequestTokens(body);
    if (contextWindow !== undefined && tokens > contextWindow) {
      const message =
        `This model's maximum context length is ${contextWindow} tokens. However, your messages resulted in ${tokens} tokens. ` +
        "Please reduce the length of the messages.";
      rejected.push({ index, status: 400, message });
      return sendJson(res, 400, errorBody(400, { message, param: "messages", code: "context_length_exceeded" }));
    }

    const step = await nextStep(body, index);
    if ("status" in step) return sendJson(res, step.status, errorBody(step.status, step.error), step.headers);
    if ("raw" in step) {
      res.writeHead(step.raw.status ?? 200, { "content-type": step.raw.contentType ?? "application/json" });
      return void res.end(step.raw.body);
    }
    if ("hang" in step) return hang(res, body.stream === true, step.hang.intervalMs ?? 50);
    const reply = resolveReply(step, body.model ?? model, body.messages);
    if (!body.stream) return sendJson(res, 200, completionBody(reply));

    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    for (const chunk of streamChunks(reply, body.stream_options?.include_usage === true)) {
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    res.end("data: [DONE]\n\n");
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method === "POST" && path === "/v1/chat/completions") {
      chatCompletions(req, res).catch((error: Error) => sendJson(res, 500, errorBody(500, { message: error.message })));
    } else if (req.method === "GET" && path === "/v1/models") {
      sendJson(res, 200, {
        object: "list",
        data: [{ id: model, object: "model", created: 0, owned_by: "deerflow-test" }],
      });
    } else {
      sendJson(res, 404, errorBody(404, { message: `Fake OpenAI server: no route ${req.method} ${path}` }));
    }
  });
  // Never close an idle connection from this side: Node's default (5 s) races a client that reuses the
  // connection at that moment, and the model call fails with UND_ERR_SOCKET (the test configs do not
  // retry). The client closes its idle connections itself; close() ends whatever is left.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    rejected,
    unexpected,
    get remaining() {
      return remainingSteps();
    },
    assertDone() {
      const problems = unexpected.map((u) => u.message);
      const remaining = remainingSteps();
      if (remaining > 0)
        problems.push(`${remaining} scripted step(s) were never requested (${requests.length} request(s) received).`);
      if (problems.length > 0) throw new Error(`Fake OpenAI server is not done:\n- ${problems.join("\n- ")}`);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Starts a 200 and never finishes it; stops writing when the client goes away. */
function hang(res: ServerResponse, stream: boolean, intervalMs: number): void {
  res.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json" });
  const timer = setInterval(() => res.write(stream ? ": waiting\n\n" : "\n"), intervalMs);
  res.on("close", () => clearInterval(timer));
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (part as { text?: string }).text ?? "").join(" ");
  return "";
}
