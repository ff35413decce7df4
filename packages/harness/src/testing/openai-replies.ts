/**
 * The JSON the fake OpenAI server sends: completions, stream chunks and error bodies in OpenAI's shapes.
 *
 * Kept apart from the HTTP plumbing so the shapes can be read (and checked against OpenAI's docs) in one
 * place. Streams split tool-call arguments over several deltas, as OpenAI does, because client code that
 * only works when a tool call arrives whole is a real bug class.
 */
import { nextId } from "./ids.js";

/** A tool call the fake server should send. A string `arguments` is sent as is (it may be invalid JSON). */
export interface FakeToolCall {
  name: string;
  arguments?: Record<string, unknown> | string;
  id?: string;
}

/** A successful scripted reply. `usage` overrides the computed token counts. */
export interface FakeReply {
  content?: string;
  tool_calls?: FakeToolCall[];
  usage?: Partial<FakeUsage>;
}

/** A scripted HTTP error; `error` fields override OpenAI's defaults for that status. */
export interface FakeErrorReply {
  status: number;
  error?: { message?: string; type?: string; code?: string | null; param?: string | null };
  /** Extra response headers, e.g. `{ "retry-after": "1" }`. */
  headers?: Record<string, string>;
}

/** A response sent exactly as given (an HTML page, `{}`, cut-off JSON...). Default status 200, JSON. */
export interface FakeRawReply {
  raw: { status?: number; contentType?: string; body: string };
}

/** A 200 whose body never ends: a blank line (or SSE comment) every `intervalMs` (default 50) until the client leaves. */
export interface FakeHangReply {
  hang: { intervalMs?: number };
}

/** Token counts as OpenAI reports them. */
export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

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

interface ResolvedCall {
  id: string;
  name: string;
  arguments: string;
}

/** A reply with ids and argument strings filled in, ready to send either way. */
export interface ResolvedReply {
  id: string;
  created: number;
  model: string;
  content: string | null;
  toolCalls: ResolvedCall[];
  finishReason: "tool_calls" | "stop";
  usage: FakeUsage;
}

/** Fills in ids, serialises arguments and computes usage (about 4 characters per token). */
export function resolveReply(reply: FakeReply, model: string, requestMessages: unknown): ResolvedReply {
  const toolCalls = (reply.tool_calls ?? []).map((call) => ({
    id: call.id ?? nextId("call_"),
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
  }));
  const outputChars =
    (reply.content ?? "").length + toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  const prompt = reply.usage?.prompt_tokens ?? Math.ceil(JSON.stringify(requestMessages ?? []).length / 4);
  const completion = reply.usage?.completion_tokens ?? Math.max(1, Math.ceil(outputChars / 4));
  return {
    id: nextId("chatcmpl-"),
    created: Math.floor(Date.now() / 1000),
    model,
    content: reply.content ?? (toolCalls.length > 0 ? null : ""),
    toolCalls,
    finishReason: toolCalls.length > 0 ? "tool_calls" : "stop",
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: reply.usage?.total_tokens ?? prompt + completion,
    },
  };
}

/** The non-streaming `chat.completion` object. */
export function completionBody(reply: ResolvedReply): object {
  const message: Record<string, unknown> = { role: "assistant", content: reply.content, refusal: null };
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
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: reply.usage,
    system_fingerprint: null,
  };
}

/**
 * The `chat.completion.chunk` objects of a stream, in order: a role delta, content split at word
 * boundaries, then per tool call a delta with id and name followed by its arguments in pieces, then the
 * finish reason, and with `includeUsage` a last chunk with no choices and the usage.
 */
export function streamChunks(reply: ResolvedReply, includeUsage: boolean): object[] {
  const deltas: Array<{ delta: object; finish_reason: string | null }> = [
    { delta: { role: "assistant", content: "", refusal: null }, finish_reason: null },
  ];
  const text = reply.content ?? "";
  for (const piece of text.match(/\s*\S+\s*/g) ?? (text ? [text] : []))
    deltas.push({ delta: { content: piece }, finish_reason: null });
  reply.toolCalls.forEach((call, index) => {
    const head = { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
    deltas.push({ delta: { tool_calls: [head] }, finish_reason: null });
    for (const piece of splitEvenly(call.arguments, 3)) {
      deltas.push({ delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null });
    }
  });
  deltas.push({ delta: {}, finish_reason: reply.finishReason });

  const head = {
    id: reply.id,
    object: "chat.completion.chunk",
    created: reply.created,
    model: reply.model,
    system_fingerprint: null,
  };
  const chunks: object[] = deltas.map(({ delta, finish_reason }) => ({
    ...head,
    choices: [{ index: 0, delta, logprobs: null, finish_reason }],
    ...(includeUsage ? { usage: null } : {}),
  }));
  if (includeUsage) chunks.push({ ...head, choices: [], usage: reply.usage });
  return chunks;
}

function splitEvenly(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
