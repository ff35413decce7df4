/**
 * How the fake provider servers put a body on the wire: like a network, not like loopback.
 *
 * On loopback a body written at once reaches the client in one read, so client code that only works
 * when an answer arrives whole passes every test and hangs against a real provider (DeerFlow.ts shipped
 * such a bug: a non-streamed answer longer than one read never completed). Here a body goes out in
 * small pieces with short pauses, and the cuts are placed where careless parsing breaks: inside the
 * first multi-byte UTF-8 character, inside the first JSON string and inside the first SSE line, then at
 * sizes that vary deterministically (the same body is always cut the same way, so a failure reproduces).
 */
import type { ServerResponse } from "node:http";

/** Realistic delivery settings. */
export interface FakeDelivery {
  /** Largest piece in bytes. Default 1024. */
  maxPieceBytes?: number;
  /**
   * Pause after each piece in ms. Default 0: one turn of the event loop (`setImmediate`), which lets a
   * client in the same process read the piece before the next is written (the loop polls sockets between
   * two immediates) without slowing a long body down by a timer per piece.
   */
  pauseMs?: number;
}

/**
 * How a fake server writes bodies: realistic pieces (the default, `{}` or settings), or `"whole"`, one
 * write per body, only for a test that needs one-piece bodies.
 */
export type FakeDeliveryOption = FakeDelivery | "whole";

/** Default largest piece: a little under what one TCP segment read often yields. */
export const DEFAULT_MAX_PIECE_BYTES = 1024;

/**
 * Where a body is cut, as ascending byte offsets (0 and the length excluded).
 *
 * @example
 * cutPoints(Buffer.from('data: {"text":"é"}\n\n')) // includes 3 (inside "data"), 9 (inside "text") and 16 (inside "é")
 */
export function cutPoints(body: Uint8Array, maxPieceBytes = DEFAULT_MAX_PIECE_BYTES): number[] {
  const cuts = new Set<number>();
  const lead = body.findIndex((byte) => byte >= 0xc0); // first byte of a multi-byte character
  if (lead >= 0) cuts.add(lead + 1);
  const quote = body.indexOf(0x22); // "
  if (quote >= 0) cuts.add(quote + 2);
  if (startsWithSseField(body)) cuts.add(3);
  // Sizes from a small fixed generator: the same body is always cut the same way.
  let seed = body.length % 9973 || 1;
  for (let at = 0; ; ) {
    seed = (seed * 48271) % 2147483647;
    at += 1 + (seed % maxPieceBytes);
    if (at >= body.length) break;
    cuts.add(at);
  }
  return [...cuts].filter((at) => at > 0 && at < body.length).sort((a, b) => a - b);
}

function startsWithSseField(body: Uint8Array): boolean {
  const head = Buffer.from(body.subarray(0, 6)).toString("latin1");
  return head.startsWith("data:") || head.startsWith("event:");
}

/**
 * Writes `body` and ends the response, in realistic pieces unless `delivery` is `"whole"`. Stops
 * quietly when the client goes away.
 */
export async function deliver(res: ServerResponse, body: Uint8Array, delivery: FakeDeliveryOption = {}): Promise<void> {
  if (delivery === "whole" || body.length === 0) {
    res.end(body);
    return;
  }
  const pauseMs = delivery.pauseMs ?? 0;
  let from = 0;
  for (const at of [...cutPoints(body, delivery.maxPieceBytes), body.length]) {
    if (res.destroyed) return;
    const flushed = res.write(body.subarray(from, at));
    from = at;
    if (!flushed) await drained(res);
    if (at < body.length) await pause(pauseMs);
  }
  if (!res.destroyed) res.end();
}

/** Resolves when the response can take more, or when the client has gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Waits `ms` milliseconds, or one turn of the event loop for 0. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
}
