/**
 * SSE responses read from a run's event log (§A.7): `event`, one-line `data`, `id` on every event,
 * `: heartbeat` comments, `Content-Location` and a mount-relative `Location`. The response is a reader:
 * closing it never stops the run unless the run asked for `on_disconnect: cancel` (or the joiner for
 * `cancel_on_disconnect`). A cursor older than the log gets a `gap` event, then the stream closes.
 */
import type { ServerContext } from "../context.js";
import { runPaths, TERMINAL } from "./create-run.js";
import type { RunRecord } from "./types.js";

/** How a stream response reads the log. */
export interface SseOptions {
  /** null: only new events; "-1": from the start; an id: after it. */
  after: string | null;
  /** Cancel (interrupt) the run when this client goes away before the end. */
  cancelOnDisconnect: boolean;
  /** Only these modes (event names before any `|`); metadata, error, end always pass. */
  modes?: string[];
  /** The request's abort signal (client gone). */
  signal: AbortSignal;
  /** Called once the first event is written, or the stream ends or is closed before one. */
  onFirstEvent?: () => void;
}

const ALWAYS = new Set(["metadata", "error", "end"]);
const encoder = new TextEncoder();

/**
 * Headers that keep proxies from holding a long response back. A compressing proxy (the `compression`
 * middleware, which Next.js runs in front of DeerFlow's frontend) buffers a compressible body until its
 * zlib window fills or the response ends, so a whole run arrived in one piece at its end. `no-transform`
 * asks intermediaries not to rewrite the body (RFC 9111), and that middleware then leaves it alone;
 * `X-Accel-Buffering: no` turns off nginx's response buffering.
 */
const UNBUFFERED_HEADERS = {
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
} as const;

/** Streams the run's events as an SSE response. */
export function sseResponse(context: ServerContext, run: RunRecord, options: SseOptions): Response {
  const reader = new AbortController();
  const { contentLocation, location } = runPaths(run);
  const modeNames = options.modes?.map((mode) => (mode === "messages-tuple" ? "messages" : mode));
  let finished = false;
  let heartbeat: NodeJS.Timeout | undefined;

  const firstEvent = () => options.onFirstEvent?.();
  const disconnected = () => {
    firstEvent();
    reader.abort();
    if (heartbeat) clearInterval(heartbeat);
    if (!finished && options.cancelOnDisconnect) {
      void context.runs.get(run.run_id).then((current) => {
        if (current && !TERMINAL.has(current.status)) {
          context.options.log(`run ${run.run_id}: client disconnected, cancelling (on_disconnect: cancel).`);
          context.queue.cancel(run.run_id, "interrupt");
        }
      });
    }
  };
  options.signal.addEventListener("abort", disconnected, { once: true });

  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      // Events that come together (a graph step's values, updates and messages) go out as one chunk: each
      // chunk is a socket write of its own, and those writes were a good part of a run's server CPU.
      let pending = "";
      let scheduled = false;
      let closed = false;
      const flush = () => {
        scheduled = false;
        if (pending === "" || closed || reader.signal.aborted) return;
        controller.enqueue(encoder.encode(pending));
        pending = "";
      };
      const write = (text: string) => {
        if (reader.signal.aborted) return;
        pending += text;
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      };
      heartbeat = setInterval(() => write(": heartbeat\n\n"), context.options.heartbeatMs);
      try {
        let after = options.after;
        // Without a log yet (a restart, a pending run), wait for the worker or the end of the run.
        while (!reader.signal.aborted && !(await context.events.has(run.run_id))) {
          const current = await context.runs.get(run.run_id);
          if (!current || TERMINAL.has(current.status)) {
            write(`event: end\ndata: null\nid: 0\n\n`);
            finished = true;
            return;
          }
          after = "-1";
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        for await (const item of context.events.follow(run.run_id, after, reader.signal)) {
          if ("gap" in item) {
            write(`event: gap\ndata: ${JSON.stringify(item.gap)}\n\n`);
            finished = true;
            return;
          }
          const base = item.event.split("|")[0]!;
          if (modeNames && !ALWAYS.has(base) && !modeNames.includes(base)) continue;
          write(`event: ${item.event}\ndata: ${item.data}\nid: ${item.id}\n\n`);
          firstEvent();
          if (item.event === "end") finished = true;
        }
        if (!finished && !reader.signal.aborted && !(await context.events.has(run.run_id))) {
          // The log was dropped (run or thread deleted): end the stream cleanly.
          write(`event: end\ndata: null\nid: 0\n\n`);
          finished = true;
        }
      } catch (error) {
        context.options.log(`stream of run ${run.run_id} failed: ${(error as Error).message}`);
      } finally {
        firstEvent();
        if (heartbeat) clearInterval(heartbeat);
        options.signal.removeEventListener("abort", disconnected);
        flush();
        closed = true;
        if (!reader.signal.aborted) controller.close();
      }
    },
    cancel() {
      disconnected();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      ...UNBUFFERED_HEADERS,
      "content-location": contentLocation,
      location,
    },
  });
}

/**
 * A JSON response that is written when the run ends, with a newline every heartbeat before it (leading
 * whitespace is valid JSON) so proxies keep the connection open; `/wait` and `/join` use it.
 */
export function waitingJsonResponse(
  context: ServerContext,
  run: RunRecord,
  result: (signal: AbortSignal) => Promise<unknown>,
  options: { signal: AbortSignal; cancelOnDisconnect: boolean; status?: number },
): Response {
  const reader = new AbortController();
  const { contentLocation } = runPaths(run);
  let done = false;
  const disconnected = () => {
    reader.abort();
    if (!done && options.cancelOnDisconnect) context.queue.cancel(run.run_id, "interrupt");
  };
  options.signal.addEventListener("abort", disconnected, { once: true });
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const beat = setInterval(() => controller.enqueue(encoder.encode("\n")), context.options.heartbeatMs);
      try {
        const value = await result(reader.signal);
        done = true;
        if (!reader.signal.aborted) controller.enqueue(encoder.encode(JSON.stringify(value ?? null)));
      } catch (error) {
        context.options.log(`waiting for run ${run.run_id} failed: ${(error as Error).message}`);
        if (!reader.signal.aborted)
          controller.enqueue(
            encoder.encode(
              JSON.stringify({ __error__: { error: "Error", message: "The server could not wait for the run." } }),
            ),
          );
      } finally {
        clearInterval(beat);
        options.signal.removeEventListener("abort", disconnected);
        if (!reader.signal.aborted) controller.close();
      }
    },
    cancel() {
      disconnected();
    },
  });
  return new Response(body, {
    status: options.status ?? 200,
    headers: {
      "content-type": "application/json",
      // The heartbeat newlines keep idle-timeout proxies from closing the request only if they pass.
      ...UNBUFFERED_HEADERS,
      "content-location": contentLocation,
      location: `${contentLocation}/join`,
    },
  });
}
