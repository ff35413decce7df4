/**
 * A local OpenAI-compatible HTTP server that plays back a script, so tests exercise the real
 * `ChatOpenAI` client end to end: request serialisation, SSE parsing, tool-call deltas, usage, retries
 * and HTTP errors, over bodies delivered in pieces as a network does. In `strict` mode it rejects
 * unpaired tool calls with OpenAI's own 400, which is how a test proves that a run never sends the
 * history a real provider would refuse.
 */
import {
  type FakeDialect,
  type FakeProviderServer,
  type FakeProviderServerOptions,
  json,
  startFakeProviderServer,
  textOf,
} from "./fake-provider-server.js";
import { resolveReply } from "./fake-script.js";

export type { FakeStep } from "./fake-script.js";
import { completionBody, errorBody, eventStream, streamChunks } from "./openai-replies.js";
import { findToolPairingError, type WireMessage } from "./openai-tool-pairing.js";

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
export interface FakeOpenAIServerOptions extends FakeProviderServerOptions<ChatCompletionRequest> {
  /** Answer HTTP 400, as OpenAI does, when tool calls and tool messages are not paired. Default false. */
  strict?: boolean;
  /**
   * The model's window in tokens (counted as 4 characters of the messages' JSON each). A larger request
   * gets OpenAI's 400 `context_length_exceeded`, uses no step and is listed in `rejected`. Default: none.
   */
  contextWindow?: number;
  /**
   * Send `role: "assistant"` in a stream's first delta, as OpenAI does. False: no delta carries a role,
   * as some OpenAI-compatible servers do. Default true.
   */
  firstDeltaRole?: boolean;
}

/** A running fake OpenAI server; `url` ends in `/v1`. */
export type FakeOpenAIServer = FakeProviderServer<ChatCompletionRequest>;

/** Tokens the fake server counts for a request: 4 characters of the messages' JSON each. */
export function fakeRequestTokens(body: ChatCompletionRequest): number {
  return Math.ceil(JSON.stringify(body.messages).length / 4);
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
export function startFakeOpenAIServer(options: FakeOpenAIServerOptions): Promise<FakeOpenAIServer> {
  return startFakeProviderServer(openAIDialect(options), options);
}

function openAIDialect(options: FakeOpenAIServerOptions): FakeDialect<ChatCompletionRequest> {
  const { strict = false, contextWindow, firstDeltaRole = true } = options;
  const error = (status: number, fields?: Parameters<typeof errorBody>[1]) => json(errorBody(status, fields), status);
  return {
    label: "Fake OpenAI server",
    path: "/v1/chat/completions",
    basePath: "/v1",
    parse(body) {
      const request = body as ChatCompletionRequest;
      if (!Array.isArray(request?.messages)) throw new Error("'messages' must be an array");
      return request;
    },
    lastMessage(body) {
      const last = body.messages.at(-1);
      return last && { role: last.role, text: textOf(last.content) };
    },
    streamed: (body) => body.stream === true,
    error,
    refuse(body) {
      const pairing = strict ? findToolPairingError(body.messages) : undefined;
      if (pairing)
        return { message: pairing.message, response: error(400, { message: pairing.message, param: pairing.param }) };
      const tokens = fakeRequestTokens(body);
      if (contextWindow === undefined || tokens <= contextWindow) return undefined;
      const message =
        `This model's maximum context length is ${contextWindow} tokens. However, your messages resulted in ${tokens} tokens. ` +
        "Please reduce the length of the messages.";
      return { message, response: error(400, { message, param: "messages", code: "context_length_exceeded" }) };
    },
    reply(step, body, model) {
      const reply = resolveReply(step, body.model ?? model, body.messages);
      if (body.stream !== true) {
        if (reply.streamError) return error(500, reply.streamError);
        return json(completionBody(reply));
      }
      const includeUsage = body.stream_options?.include_usage === true;
      return {
        contentType: "text/event-stream",
        body: eventStream(streamChunks(reply, { includeUsage, firstDeltaRole })),
      };
    },
    hang: (streamed) => ({
      contentType: streamed ? "text/event-stream" : "application/json",
      filler: streamed ? ": waiting\n\n" : "\n",
    }),
    get: {
      "/v1/models": (model) => ({
        object: "list",
        data: [{ id: model, object: "model", created: 0, owned_by: "deerflow-test" }],
      }),
    },
  };
}
