/**
 * A `fetch` for OpenAI-compatible clients that mends the head of a chat completions stream.
 *
 * In a stream `delta.role` is optional: OpenAI sends it in the first delta only, and some compatible
 * servers never send it. @langchain/openai types each delta by the last role it saw, so with none it
 * builds a generic `ChatMessageChunk` instead of an `AIMessageChunk`, and the agent fails with
 * 'Invalid response from "wrapModelCall" ...: expected AIMessage or Command, got object'. Only the
 * assistant answers a chat completion (langchain's Python client defaults to it too), so the first
 * delta without a role gets `"role": "assistant"`; the client carries it on to later deltas.
 *
 * A stream that ends without any choice (only a usage chunk, as some gateways send when they drop an
 * answer) would otherwise end the run with an empty answer; it fails with the same
 * {@link ModelResponseError} as a non-streamed `choices: []`. Only the stream's head is parsed: once
 * the first choice has gone by, bytes pass through untouched.
 */
import { noChoicesError } from "./deadline-fetch.js";

/** Options of {@link createOpenAIStreamFetch}. */
export interface OpenAIStreamFetchOptions {
  /** Names the model in errors, e.g. `Model "qwen" at http://localhost:8000/v1`. */
  label: string;
  /** The fetch to wrap. Default `globalThis.fetch`. */
  fetch?: typeof fetch;
}

/**
 * Wraps `fetch` so that a chat completions stream's first delta carries a role and a stream without
 * any choice fails.
 *
 * @example
 * new ChatOpenAI({ model: "qwen3", configuration: { baseURL,
 *   fetch: createOpenAIStreamFetch({ label, fetch: createDeadlineFetch({ timeoutMs, label, shape: "openai" }) }) } });
 */
export function createOpenAIStreamFetch(options: OpenAIStreamFetchOptions): typeof fetch {
  const inner = options.fetch ?? globalThis.fetch;
  return async (input, init) => {
    const response = await inner(input, init);
    const contentType = response.headers.get("content-type") ?? "";
    if (!response.ok || !response.body || !contentType.includes("text/event-stream")) return response;
    return new Response(response.body.pipeThrough(mendStreamHead(options.label)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

const NEWLINE = 0x0a;

/**
 * Holds the stream line by line until the first `data:` event with a choice, gives each of its deltas
 * without a role the assistant role, then passes everything through unchanged. Fails at the end when
 * there were `data:` events but none had a choice.
 */
export function mendStreamHead(label: string): TransformStream<Uint8Array, Uint8Array> {
  let head: Uint8Array = new Uint8Array(0);
  let passing = false;
  let sawChunk = false;
  return new TransformStream({
    transform(chunk, stream) {
      if (passing) return stream.enqueue(chunk);
      head = concat(head, chunk);
      let start = 0;
      for (let end = head.indexOf(NEWLINE); end >= 0 && !passing; end = head.indexOf(NEWLINE, start)) {
        const line = head.subarray(start, end + 1);
        const mended = withRole(new TextDecoder().decode(line));
        sawChunk ||= mended !== undefined;
        if (mended?.choice) passing = true;
        stream.enqueue(mended?.line === undefined ? line : new TextEncoder().encode(mended.line));
        start = end + 1;
      }
      head = head.subarray(start);
      // A line this long is no chat completions event head (or the stream does not end lines with \n).
      if (head.length > MAX_HELD_BYTES) passing = true;
      if (passing && head.length > 0) stream.enqueue(head);
    },
    flush(stream) {
      if (passing) return;
      if (head.length > 0) stream.enqueue(head);
      if (sawChunk) stream.error(noChoicesError(label, "a stream with no choice in it"));
    },
  });
}

/** Most bytes held while looking for the end of a line. */
const MAX_HELD_BYTES = 1 << 20;

/**
 * Reads a `data:` line holding a completion chunk (JSON with a `choices` list): whether it has a choice
 * with a delta, and the line rewritten when one of its deltas had no role (`line` undefined when
 * nothing changed). Undefined for any other line: comments, `event:`, `[DONE]`, `{"error": ...}`.
 */
function withRole(line: string): { choice: boolean; line?: string } | undefined {
  const match = /^data:\s?(.*?)(\r?\n)$/s.exec(line);
  if (!match || !match[1]!.startsWith("{")) return undefined;
  let event: { choices?: Array<{ delta?: { role?: string } }> };
  try {
    event = JSON.parse(match[1]!);
  } catch {
    return undefined;
  }
  if (!Array.isArray(event.choices)) return undefined;
  const deltas = event.choices
    .map((choice) => choice?.delta)
    .filter((delta) => delta !== null && typeof delta === "object");
  const roleless = deltas.filter((delta) => !delta!.role);
  for (const delta of roleless) delta!.role = "assistant";
  if (roleless.length === 0) return { choice: deltas.length > 0 };
  return { choice: true, line: `data: ${JSON.stringify(event)}${match[2]}` };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
