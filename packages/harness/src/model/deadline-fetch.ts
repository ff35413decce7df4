/**
 * A `fetch` for provider clients that gives each model call one deadline covering the whole response,
 * and refuses a 200 whose body is not a model answer.
 *
 * The SDKs' own `timeout` stops once the response headers arrive, so a server that sends `200` and then
 * trickles its body (or never finishes it) hangs a run for ever. Here a timer started with the request
 * aborts it, body included, and the read fails with a {@link ModelTimeoutError} naming the model. A 200
 * carrying an HTML page (a proxy's login or error page), `{}` or cut-off JSON would otherwise surface
 * as "Unexpected token <" or "Cannot read properties of undefined"; it fails with a
 * {@link ModelResponseError} that says what came back. So does an OpenAI answer whose `choices` is
 * empty (the client would fail reading `choices[0]`).
 */
import { ModelError } from "../errors.js";

/** Longest `setTimeout` delay Node honours; larger values fire at once (32-bit overflow). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Clamps a delay to what `setTimeout` can wait (at least 0). */
export function timerMs(ms: number): number {
  return Math.min(MAX_TIMER_MS, Math.max(0, Math.floor(ms)));
}

/** The whole response did not arrive in time (retried like any timeout). */
export class ModelTimeoutError extends ModelError {
  constructor(message: string) {
    super(message);
    this.name = "ModelTimeoutError";
  }
}

/** The server answered 200 with something that is not a model answer (not retried). */
export class ModelResponseError extends ModelError {
  constructor(message: string) {
    super(message);
    this.name = "ModelResponseError";
  }
}

/** What a successful non-streamed answer of a provider looks like. */
export type ResponseShape = "openai" | "anthropic" | "any";

/** Options of {@link createDeadlineFetch}. */
export interface DeadlineFetchOptions {
  /** Deadline of one request, headers and body together. */
  timeoutMs: number;
  /** Names the model in errors, e.g. `Model "qwen" at http://localhost:8000/v1`. */
  label: string;
  /** How a 200 JSON answer is checked. Default "any" (JSON only). */
  shape?: ResponseShape;
  /** The fetch to wrap. Default `globalThis.fetch`. */
  fetch?: typeof fetch;
}

/**
 * Wraps `fetch` with a whole-response deadline and a check of 200 bodies.
 *
 * @example
 * new ChatOpenAI({ model: "qwen3", maxRetries: 0, configuration: { baseURL,
 *   fetch: createDeadlineFetch({ timeoutMs: 600_000, label: 'Model "qwen" at http://localhost:8000/v1', shape: "openai" }) } });
 */
export function createDeadlineFetch(options: DeadlineFetchOptions): typeof fetch {
  const inner = options.fetch ?? globalThis.fetch;
  const seconds = Math.round(options.timeoutMs / 100) / 10;
  return async (input, init = {}) => {
    const controller = new AbortController();
    // Made when the deadline fires, not per request (an error's stack trace is costly), and aborted with:
    // the signal's reason is the error every reader gets.
    const timer = setTimeout(
      () =>
        controller.abort(
          new ModelTimeoutError(
            `${options.label} did not finish its answer within ${seconds} s (the whole response, body included). ` +
              "The server may be overloaded or stuck; raise the model's timeout: in config.yaml if answers are just slow.",
          ),
        ),
      timerMs(options.timeoutMs),
    );
    const timeout = () => controller.signal.reason as Error;
    const signal = init.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    let response: Response;
    try {
      response = await inner(input, { ...init, signal });
    } catch (error) {
      clearTimeout(timer);
      if (!controller.signal.aborted || init.signal?.aborted) throw error;
      // Thrown from fetch, the SDKs would replace our error with a bare "Request timed out."; a body that
      // fails with it reaches the caller as it is.
      return new Response(new ReadableStream({ start: (stream) => stream.error(timeout()) }), {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    }
    const contentType = response.headers.get("content-type") ?? "";
    const streamed = contentType.includes("text/event-stream") || contentType.includes("ndjson");
    // Answers that are not streams are checked once whole; the check runs as the client reads the body,
    // so the error reaches the caller as it is rather than wrapped as a connection error.
    const check =
      response.ok && !streamed
        ? (text: string) =>
            checkAnswer(text, contentType, requestedStream(init.body), {
              ...options,
              shape: answersAt(input) ? options.shape : "any",
            })
        : undefined;
    return new Response(guardBody(response.body, { timer, controller, timeout, check }), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

interface Guard {
  timer: NodeJS.Timeout;
  controller: AbortController;
  /** The deadline's error (once the deadline fired). */
  timeout: () => Error;
  /** Called with the whole body at its end; throws when it is not acceptable. */
  check?: (text: string) => void;
}

/** Passes a body through; when the deadline fires, the reader gets the timeout error. */
function guardBody(body: ReadableStream<Uint8Array> | null, guard: Guard): ReadableStream<Uint8Array> | null {
  const { timer, controller, timeout, check } = guard;
  if (!body) {
    clearTimeout(timer);
    check?.("");
    return null;
  }
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const held: Uint8Array[] = [];
  return new ReadableStream<Uint8Array>({
    start(stream) {
      controller.signal.addEventListener("abort", () => {
        try {
          stream.error(timeout());
        } catch {
          // already closed
        }
      });
    },
    async pull(stream) {
      try {
        // A pull must enqueue or close before it returns: the stream calls pull again only after a
        // chunk was taken, so a pull that returns empty-handed leaves the reader waiting for ever.
        // A checked body is held until its end, so that pull reads every piece in this loop.
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (!check) return stream.enqueue(value);
          text += decoder.decode(value, { stream: true });
          held.push(value);
        }
        clearTimeout(timer);
        if (check) {
          check(text + decoder.decode());
          for (const chunk of held) stream.enqueue(chunk);
        }
        stream.close();
      } catch (error) {
        clearTimeout(timer);
        stream.error(controller.signal.aborted ? timeout() : error);
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
}

/** True for the URLs whose 200 is a model answer (chat completions, Anthropic messages). */
function answersAt(input: string | URL | Request): boolean {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  return /\/(chat\/completions|messages)(\?|$)/.test(url);
}

function requestedStream(body: unknown): boolean {
  return typeof body === "string" && /"stream"\s*:\s*true/.test(body);
}

/** Throws a {@link ModelResponseError} when a 200 body is not an answer of the expected shape. */
export function checkAnswer(
  text: string,
  contentType: string,
  streamRequested: boolean,
  options: Pick<DeadlineFetchOptions, "label" | "shape">,
): void {
  const got = describeBody(text, contentType, options.shape ?? "any", streamRequested);
  if (got === null) return;
  if (got.startsWith(NO_CHOICES)) throw noChoicesError(options.label, got);
  throw new ModelResponseError(
    `${options.label} answered HTTP 200 with ${got}, not a model answer. ` +
      "Check base_url (it must point at the provider's API, e.g. ending in /v1) and any proxy in between.",
  );
}

const NO_CHOICES = 'an empty "choices" list';

/**
 * The error for an OpenAI-style answer without any choice, streamed or not; `got` says what came
 * (`an empty "choices" list ("{...}")`, `a stream with no choice in it`).
 */
export function noChoicesError(label: string, got: string): ModelResponseError {
  return new ModelResponseError(
    `${label} answered HTTP 200 with ${got}: the provider sent no answer (some do when a content filter or an ` +
      "upstream failure dropped it). Try again; if it keeps happening, check the provider's status or logs.",
  );
}

function describeBody(
  text: string,
  contentType: string,
  shape: ResponseShape,
  streamRequested: boolean,
): string | null {
  const start = text.trimStart();
  const sample = JSON.stringify(start.length > 120 ? `${start.slice(0, 117)}...` : start);
  if (contentType.includes("text/html") || start.startsWith("<")) return `an HTML page (${sample})`;
  if (start === "") return "an empty body";
  if (streamRequested && start.startsWith("data:")) return null; // an event stream with a wrong content type
  let json: unknown;
  try {
    json = JSON.parse(start);
  } catch {
    return `invalid or cut-off JSON (${text.length} characters: ${sample})`;
  }
  if (typeof json !== "object" || json === null) return `JSON that is not an object (${sample})`;
  const record = json as Record<string, unknown>;
  if (shape === "openai" && !Array.isArray(record.choices)) return `JSON without "choices" (${sample})`;
  if (shape === "openai" && (record.choices as unknown[]).length === 0) return `${NO_CHOICES} (${sample})`;
  if (shape === "anthropic" && !Array.isArray(record.content)) return `JSON without "content" (${sample})`;
  return null;
}
