/**
 * The JSON the fake Anthropic server sends, in the shapes of Anthropic's Messages API documentation:
 * a `message` object, the streaming events (`message_start`, `content_block_start` / `_delta` /
 * `_stop` per block, `ping` now and then, `message_delta` carrying `stop_reason` and the output
 * usage, `message_stop`), and `{ type: "error", error }` bodies and events. Text, thinking and
 * `input_json_delta` pieces are cut anywhere, as Anthropic's are.
 */
import type { FakeErrorReply, ResolvedReply } from "./fake-script.js";
import { splitAnywhere } from "./fake-script.js";

/** Anthropic's error type for each HTTP status it documents. */
const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** HTTP status of an Anthropic error type (the inverse of the table above; 500 when unknown). */
export function anthropicStatus(type: string | undefined): number {
  const found = Object.entries(ERROR_TYPES).find(([, name]) => name === type);
  return found ? Number(found[0]) : 500;
}

/** An Anthropic error body: `{ type: "error", error: { type, message } }`. */
export function anthropicErrorBody(status: number, error: FakeErrorReply["error"] = {}): object {
  const type = error.type ?? ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
  const message = error.message ?? (type === "overloaded_error" ? "Overloaded" : `HTTP ${status}`);
  return { type: "error", error: { type, message } };
}

const STOP_REASONS: Record<ResolvedReply["finishReason"], string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
};

const signature = (reply: ResolvedReply) => Buffer.from(`fake-signature:${reply.id}`).toString("base64");

/** The content blocks of an answer: thinking, text, then one `tool_use` per call. */
function blocks(reply: ResolvedReply): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  if (reply.reasoning) out.push({ type: "thinking", thinking: reply.reasoning, signature: signature(reply) });
  if (reply.content) out.push({ type: "text", text: reply.content });
  for (const call of reply.toolCalls)
    out.push({ type: "tool_use", id: call.id, name: call.name, input: parsed(call.arguments) });
  return out;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** The non-streamed `message` object. */
export function messageBody(reply: ResolvedReply): object {
  return {
    id: reply.id,
    type: "message",
    role: "assistant",
    model: reply.model,
    content: blocks(reply),
    stop_reason: STOP_REASONS[reply.finishReason],
    stop_sequence: null,
    usage: { input_tokens: reply.usage.prompt_tokens, output_tokens: reply.usage.completion_tokens },
  };
}

/** A streaming event: its name and data. */
export type AnthropicEvent = [event: string, data: Record<string, unknown>];

/**
 * The events of a streamed answer, in Anthropic's documented order, with a `ping` after
 * `message_start` and after every 50 deltas. A `stream_error` reply stops after its content with an
 * `error` event (no `message_delta`, no `message_stop`).
 */
export function messageEvents(reply: ResolvedReply): AnthropicEvent[] {
  const events: AnthropicEvent[] = [];
  let deltas = 0;
  const delta = (index: number, body: Record<string, unknown>) => {
    events.push(["content_block_delta", { type: "content_block_delta", index, delta: body }]);
    if (++deltas % 50 === 0) events.push(["ping", { type: "ping" }]);
  };
  const head = { ...messageBody(reply), content: [], stop_reason: null } as Record<string, unknown>;
  head.usage = { input_tokens: reply.usage.prompt_tokens, output_tokens: 1 };
  events.push(["message_start", { type: "message_start", message: head }], ["ping", { type: "ping" }]);
  blocks(reply).forEach((block, index) => {
    const start = (content_block: object) =>
      events.push(["content_block_start", { type: "content_block_start", index, content_block }]);
    if (block.type === "thinking") {
      start({ type: "thinking", thinking: "" });
      for (const piece of splitAnywhere(reply.reasoning)) delta(index, { type: "thinking_delta", thinking: piece });
      delta(index, { type: "signature_delta", signature: block.signature });
    } else if (block.type === "text") {
      start({ type: "text", text: "" });
      for (const piece of splitAnywhere(reply.content ?? "")) delta(index, { type: "text_delta", text: piece });
    } else {
      const call = reply.toolCalls.find((c) => c.id === block.id)!;
      start({ type: "tool_use", id: call.id, name: call.name, input: {} });
      for (const piece of ["", ...splitAnywhere(call.arguments)])
        delta(index, { type: "input_json_delta", partial_json: piece });
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  if (reply.streamError) {
    const status = anthropicStatus(reply.streamError.type ?? "overloaded_error");
    return [...events, ["error", anthropicErrorBody(status, reply.streamError) as Record<string, unknown>]];
  }
  events.push(
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: STOP_REASONS[reply.finishReason], stop_sequence: null },
        usage: { output_tokens: reply.usage.completion_tokens },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  );
  return events;
}

/** Events as an SSE body: `event: NAME` and `data: JSON` per event. */
export function anthropicEventStream(events: AnthropicEvent[]): string {
  return events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}
