/**
 * The script the fake provider servers play back, in one vocabulary for every dialect: a test says
 * what the model answers (`{ content }`, `{ tool_calls }`, an HTTP error, a hang) and each fake renders
 * it in its provider's wire format. Also the splitting every dialect's stream uses, which cuts text and
 * tool arguments into many small deltas at arbitrary points, as providers do (by token, not by word).
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
  /**
   * The model's reasoning, sent before the answer: OpenAI dialect `reasoning_content` (DeepSeek, vLLM,
   * Qwen), Anthropic a `thinking` block, Ollama `message.thinking`.
   */
  reasoning?: string;
  /**
   * Why the answer ended, when not by itself: `length` (out of output tokens; Anthropic `max_tokens`) or
   * `content_filter` (Anthropic `refusal`). Default: `stop`, or `tool_calls` when there are calls.
   */
  finish_reason?: "length" | "content_filter";
  /** OpenAI dialect: a 200 whose `choices` is empty (a dropped or filtered answer), streamed or not. */
  no_choices?: boolean;
  /**
   * The provider fails partway: streamed, the content goes out and then this error event instead of the
   * end (Anthropic `event: error`, OpenAI a `data: {"error"}` line, Ollama an `{"error"}` line); not
   * streamed, the request fails with the error's HTTP status (Anthropic `overloaded_error` 529, else 500).
   */
  stream_error?: { type?: string; message?: string };
}

/** A scripted HTTP error; `error` fields override the dialect's defaults for that status. */
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

/** One scripted answer: a reply, an HTTP error such as `{ status: 429 }`, a raw body, or a body that never ends. */
export type FakeStep = FakeReply | FakeErrorReply | FakeRawReply | FakeHangReply;

/** Token counts as OpenAI reports them (the other dialects rename them). */
export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** A tool call with its id and argument string filled in. */
export interface ResolvedCall {
  id: string;
  name: string;
  arguments: string;
}

/** A reply with ids, argument strings and usage filled in, ready to render in any dialect. */
export interface ResolvedReply {
  id: string;
  created: number;
  model: string;
  content: string | null;
  reasoning: string;
  toolCalls: ResolvedCall[];
  finishReason: "tool_calls" | "stop" | "length" | "content_filter";
  noChoices: boolean;
  streamError?: { type?: string; message?: string };
  usage: FakeUsage;
}

/** Fills in ids, serialises arguments and computes usage (about 4 characters per token). */
export function resolveReply(
  reply: FakeReply,
  model: string,
  requestMessages: unknown,
  idPrefix = "chatcmpl-",
  callIdPrefix = "call_",
): ResolvedReply {
  const toolCalls = (reply.tool_calls ?? []).map((call) => ({
    id: call.id ?? nextId(callIdPrefix),
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
  }));
  const outputChars =
    (reply.content ?? "").length +
    (reply.reasoning ?? "").length +
    toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  const prompt = reply.usage?.prompt_tokens ?? Math.ceil(JSON.stringify(requestMessages ?? []).length / 4);
  const completion = reply.usage?.completion_tokens ?? Math.max(1, Math.ceil(outputChars / 4));
  return {
    id: nextId(idPrefix),
    created: Math.floor(Date.now() / 1000),
    model,
    content: reply.content ?? (toolCalls.length > 0 ? null : ""),
    reasoning: reply.reasoning ?? "",
    toolCalls,
    finishReason: reply.finish_reason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
    noChoices: reply.no_choices === true,
    ...(reply.stream_error ? { streamError: reply.stream_error } : {}),
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: reply.usage?.total_tokens ?? prompt + completion,
    },
  };
}

/** Piece lengths the splitters cycle through: many small deltas, a few larger ones. */
const PIECE_SIZES = [1, 4, 2, 7, 3, 16, 5, 11];

/**
 * Splits text into pieces at arbitrary points (inside words, keys, escapes), never inside a character:
 * what providers do when they stream by token. Long texts get longer pieces, at most about `maxPieces`.
 *
 * @example
 * splitAnywhere('{"path":"a"}') // ['{', '"pat', 'h"', ':"a"}'] (always the same cuts)
 */
export function splitAnywhere(text: string, maxPieces = 600): string[] {
  const chars = Array.from(text);
  const floor = Math.ceil(chars.length / maxPieces);
  const pieces: string[] = [];
  for (let at = 0, i = 0; at < chars.length; i++) {
    const size = Math.max(floor, PIECE_SIZES[i % PIECE_SIZES.length]!);
    pieces.push(chars.slice(at, at + size).join(""));
    at += size;
  }
  return pieces;
}
