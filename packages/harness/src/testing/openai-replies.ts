/**
 * The JSON the fake OpenAI server sends: completions, stream chunks and error bodies in OpenAI's shapes.
 *
 * Kept apart from the HTTP plumbing so the shapes can be read (and checked against OpenAI's docs) in one
 * place. Streams send text and tool-call arguments in many small deltas cut anywhere, parallel calls
 * told apart only by `index`, and with `include_usage` a last chunk whose `choices` is empty, as OpenAI
 * does: client code that only works when a tool call arrives whole is a real bug class. Options cover
 * what OpenAI-compatible servers do differently (no `role` in any delta, DeepSeek's `reasoning_content`).
 */
import type { FakeErrorReply, ResolvedReply } from "./fake-script.js";
import { splitAnywhere } from "./fake-script.js";

/** OpenAI's error body: `{ error: { message, type, param, code } }`. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const DEFAULT_ERRORS: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: "Bad request.", type: "invalid_request_error", code: null },
  401: {
    message: "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
    type: "invalid_request_error",
    code: "invalid_api_key",
  },
  429: {
    message: "Rate limit reached for requests. Please try again later.",
    type: "requests",
    code: "rate_limit_exceeded",
  },
  500: {
    message: "The server had an error while processing your request. Sorry about that!",
    type: "server_error",
    code: null,
  },
};

/** Builds an error body for `status`, letting `error` override any field. */
export function errorBody(status: number, error: FakeErrorReply["error"] = {}): OpenAIErrorBody {
  const base = DEFAULT_ERRORS[status] ?? { message: `HTTP ${status}`, type: "invalid_request_error", code: null };
  return { error: { ...base, param: null, ...error } as OpenAIErrorBody["error"] };
}

/** The non-streaming `chat.completion` object (DeepSeek's `reasoning_content` beside the content). */
export function completionBody(reply: ResolvedReply): object {
  const message: Record<string, unknown> = { role: "assistant", content: reply.content, refusal: null };
  if (reply.reasoning) message.reasoning_content = reply.reasoning;
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return {
    id: reply.id,
    object: "chat.completion",
    created: reply.created,
    model: reply.model,
    choices: reply.noChoices ? [] : [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: reply.usage,
    system_fingerprint: null,
  };
}

/** How a server's streams differ from OpenAI's. */
export interface OpenAIStreamOptions {
  /** Send a last chunk with empty `choices` and the usage (the client asked `stream_options.include_usage`). */
  includeUsage?: boolean;
  /** Send `role: "assistant"` in the first delta, as OpenAI does. False: no delta carries a role. Default true. */
  firstDeltaRole?: boolean;
}

/**
 * The `chat.completion.chunk` objects of a stream, in order: an opening delta (with the role), the
 * reasoning as `reasoning_content` deltas, the content in pieces, then per tool call a delta with index,
 * id and name followed by its arguments in many pieces carrying only the index, then the finish reason,
 * and with `includeUsage` a last chunk with no choices and the usage. A `no_choices` reply sends no
 * choice at all; a `stream_error` reply ends after the content with `{"error": ...}` instead.
 */
export function streamChunks(reply: ResolvedReply, options: OpenAIStreamOptions = {}): object[] {
  const { includeUsage = false, firstDeltaRole = true } = options;
  const deltas: Array<{ delta: object; finish_reason: string | null }> = [];
  const opening = reply.reasoning ? { content: null, reasoning_content: "" } : { content: "", refusal: null };
  deltas.push({ delta: firstDeltaRole ? { role: "assistant", ...opening } : opening, finish_reason: null });
  for (const piece of reply.reasoning ? splitAnywhere(reply.reasoning) : [])
    deltas.push({ delta: { content: null, reasoning_content: piece }, finish_reason: null });
  for (const piece of splitAnywhere(reply.content ?? ""))
    deltas.push({
      delta: reply.reasoning ? { content: piece, reasoning_content: null } : { content: piece },
      finish_reason: null,
    });
  reply.toolCalls.forEach((call, index) => {
    const head = { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
    deltas.push({ delta: { tool_calls: [head] }, finish_reason: null });
    for (const piece of splitAnywhere(call.arguments)) {
      deltas.push({ delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null });
    }
  });
  if (!reply.streamError) deltas.push({ delta: {}, finish_reason: reply.finishReason });

  const head = {
    id: reply.id,
    object: "chat.completion.chunk",
    created: reply.created,
    model: reply.model,
    system_fingerprint: null,
  };
  const chunks: object[] = reply.noChoices
    ? []
    : deltas.map(({ delta, finish_reason }) => ({
        ...head,
        choices: [{ index: 0, delta, logprobs: null, finish_reason }],
        ...(includeUsage ? { usage: null } : {}),
      }));
  if (reply.streamError) {
    const { type = "server_error", message = "The server had an error while processing your request." } =
      reply.streamError;
    return [...chunks, { error: { message, type, param: null, code: null } }];
  }
  if (includeUsage || reply.noChoices) chunks.push({ ...head, choices: [], usage: reply.usage });
  return chunks;
}

/** A whole event stream: each chunk as a `data:` event, then `data: [DONE]` (not after an error). */
export function eventStream(chunks: object[]): string {
  const events = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("");
  return chunks.some((chunk) => "error" in chunk) ? events : `${events}data: [DONE]\n\n`;
}
