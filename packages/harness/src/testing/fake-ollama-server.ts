/**
 * A local server speaking Ollama's native chat API (`POST /api/chat`), so tests run the real
 * `ChatOllama` client end to end. Ollama streams newline-delimited JSON (`application/x-ndjson`): one
 * object per piece of the answer with `done: false` (`message.content`, `message.thinking`, and tool
 * calls whole, with arguments as an object), then one with `done: true`, `done_reason` and the token
 * counts. Errors are `{ "error": "..." }`, as a body or as a line mid-stream. Give its `url` as a
 * `use: ollama` entry's `base_url`.
 */
import {
  type FakeDialect,
  type FakeProviderServer,
  type FakeProviderServerOptions,
  json,
  startFakeProviderServer,
  textOf,
} from "./fake-provider-server.js";
import { type ResolvedReply, resolveReply, splitAnywhere } from "./fake-script.js";

/** An `/api/chat` request body as received (only the fields the server reads are typed). */
export interface OllamaChatRequest {
  model?: string;
  messages: Array<{ role: string; content?: unknown; [key: string]: unknown }>;
  tools?: Array<{ type: string; function: { name: string; [key: string]: unknown } }>;
  stream?: boolean;
  [key: string]: unknown;
}

/** Options of {@link startFakeOllamaServer}. */
export type FakeOllamaServerOptions = FakeProviderServerOptions<OllamaChatRequest>;

/** A running fake Ollama server; `url` is the origin. */
export type FakeOllamaServer = FakeProviderServer<OllamaChatRequest>;

/**
 * Starts a fake Ollama server on 127.0.0.1 with an OS-chosen port.
 *
 * @example
 * ```ts
 * const server = await startFakeOllamaServer({ script: [{ content: "Hello." }] });
 * // config.yaml: - {name: local, use: ollama, model: llama3.2, base_url: '<server.url>'}
 * ```
 */
export function startFakeOllamaServer(options: FakeOllamaServerOptions): Promise<FakeOllamaServer> {
  return startFakeProviderServer(ollamaDialect, options);
}

/** The chat objects of an answer, the last one `done: true`; a `stream_error` reply ends in `{ error }` instead. */
export function ollamaChunks(reply: ResolvedReply, streamed: boolean): object[] {
  const at = new Date(reply.created * 1000).toISOString();
  const piece = (message: object) => ({
    model: reply.model,
    created_at: at,
    message: { role: "assistant", content: "", ...message },
    done: false,
  });
  const toolCalls = reply.toolCalls.map((call) => ({
    function: { name: call.name, arguments: parsed(call.arguments) },
  }));
  const pieces = streamed
    ? [
        ...(reply.reasoning ? splitAnywhere(reply.reasoning) : []).map((thinking) => piece({ thinking })),
        ...splitAnywhere(reply.content ?? "").map((content) => piece({ content })),
        ...(toolCalls.length > 0 ? [piece({ tool_calls: toolCalls })] : []),
      ]
    : [];
  if (reply.streamError)
    return [...pieces, { error: reply.streamError.message ?? "an error was encountered while running the model" }];
  const whole = streamed
    ? { role: "assistant", content: "" }
    : {
        role: "assistant",
        content: reply.content ?? "",
        ...(reply.reasoning ? { thinking: reply.reasoning } : {}),
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      };
  const done = {
    model: reply.model,
    created_at: at,
    message: whole,
    done: true,
    done_reason: reply.finishReason === "length" ? "length" : "stop",
    total_duration: 1_000_000,
    load_duration: 1000,
    prompt_eval_count: reply.usage.prompt_tokens,
    prompt_eval_duration: 1000,
    eval_count: reply.usage.completion_tokens,
    eval_duration: 1000,
  };
  return [...pieces, done];
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

const error = (status: number, fields: { message?: string } = {}) =>
  json({ error: fields.message ?? `HTTP ${status}` }, status);

const ollamaDialect: FakeDialect<OllamaChatRequest> = {
  label: "Fake Ollama server",
  path: "/api/chat",
  basePath: "",
  parse(body) {
    const request = body as OllamaChatRequest;
    if (!Array.isArray(request?.messages)) throw new Error("messages must be an array");
    return request;
  },
  lastMessage(body) {
    const last = body.messages.at(-1);
    return last && { role: last.role, text: textOf(last.content) };
  },
  // Ollama streams unless the request says `stream: false`.
  streamed: (body) => body.stream !== false,
  error,
  reply(step, body, model) {
    const reply = resolveReply(step, body.model ?? model, body.messages);
    const streamed = body.stream !== false;
    if (!streamed && reply.streamError) return error(500, reply.streamError);
    const chunks = ollamaChunks(reply, streamed);
    if (!streamed) return json(chunks[0]);
    return { contentType: "application/x-ndjson", body: chunks.map((chunk) => `${JSON.stringify(chunk)}\n`).join("") };
  },
  // Spaces, not blank lines: ollama-js warns about every line that is not JSON.
  hang: (streamed) => ({ contentType: streamed ? "application/x-ndjson" : "application/json", filler: " " }),
  get: { "/api/tags": (model) => ({ models: [{ name: model, model, size: 0, digest: "fake" }] }) },
};
