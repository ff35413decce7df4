/**
 * A local server speaking Anthropic's Messages API (`POST /v1/messages`, streamed and not), so tests
 * run the real `ChatAnthropic` client end to end over bodies delivered in pieces: the event sequence,
 * `input_json_delta` reassembly, thinking blocks, `ping`s, and an `overloaded_error` mid-stream. Give
 * its `url` as a `use: anthropic` entry's `base_url` (the SDK appends `/v1/messages`).
 */
import {
  anthropicErrorBody,
  anthropicEventStream,
  anthropicStatus,
  messageBody,
  messageEvents,
} from "./anthropic-replies.js";
import {
  type FakeDialect,
  type FakeProviderServer,
  type FakeProviderServerOptions,
  json,
  startFakeProviderServer,
  textOf,
} from "./fake-provider-server.js";
import { resolveReply } from "./fake-script.js";

/** A Messages API request body as received (only the fields the server reads are typed). */
export interface AnthropicRequest {
  model?: string;
  max_tokens?: number;
  system?: unknown;
  messages: Array<{ role: string; content: unknown }>;
  tools?: Array<{ name: string; [key: string]: unknown }>;
  stream?: boolean;
  [key: string]: unknown;
}

/** Options of {@link startFakeAnthropicServer}. */
export type FakeAnthropicServerOptions = FakeProviderServerOptions<AnthropicRequest>;

/** A running fake Anthropic server; `url` is the origin (no `/v1`). */
export type FakeAnthropicServer = FakeProviderServer<AnthropicRequest>;

/**
 * Starts a fake Anthropic Messages server on 127.0.0.1 with an OS-chosen port.
 *
 * @example
 * ```ts
 * const server = await startFakeAnthropicServer({ script: [{ content: "Hello." }] });
 * // config.yaml: - {name: claude, use: anthropic, model: claude-fake, api_key: x, base_url: '<server.url>'}
 * ```
 */
export function startFakeAnthropicServer(options: FakeAnthropicServerOptions): Promise<FakeAnthropicServer> {
  return startFakeProviderServer(anthropicDialect, options);
}

const error = (status: number, fields?: Parameters<typeof anthropicErrorBody>[1]) =>
  json(anthropicErrorBody(status, fields), status, { "request-id": "req_fake" });

const anthropicDialect: FakeDialect<AnthropicRequest> = {
  label: "Fake Anthropic server",
  path: "/v1/messages",
  basePath: "",
  parse(body) {
    const request = body as AnthropicRequest;
    if (!Array.isArray(request?.messages)) throw new Error("messages: Field required");
    if (typeof request.max_tokens !== "number") throw new Error("max_tokens: Field required");
    return request;
  },
  lastMessage(body) {
    const last = body.messages.at(-1);
    if (!last) return undefined;
    const parts = Array.isArray(last.content) ? last.content : [last.content];
    const text = parts.map((part) => textOf((part as { content?: unknown })?.content ?? [part])).join(" ");
    return { role: last.role, text };
  },
  streamed: (body) => body.stream === true,
  error,
  reply(step, body, model) {
    const reply = resolveReply(step, body.model ?? model, body.messages, "msg_", "toolu_");
    if (body.stream !== true) {
      if (reply.streamError)
        return error(anthropicStatus(reply.streamError.type ?? "overloaded_error"), reply.streamError);
      return json(messageBody(reply));
    }
    return { contentType: "text/event-stream; charset=utf-8", body: anthropicEventStream(messageEvents(reply)) };
  },
  hang: (streamed) =>
    streamed
      ? { contentType: "text/event-stream; charset=utf-8", filler: 'event: ping\ndata: {"type": "ping"}\n\n' }
      : { contentType: "application/json", filler: "\n" },
};
