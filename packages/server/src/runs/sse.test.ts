import assert from "node:assert/strict";
import { test } from "node:test";
import type { ServerContext } from "../context.js";
import { createMemoryEventLog } from "./memory-event-log.js";
import { sseResponse } from "./sse.js";
import type { RunRecord } from "./types.js";

const run = {
  run_id: "r1",
  thread_id: "t1",
  assistant_id: "a",
  created_at: "",
  updated_at: "",
  status: "running",
  metadata: {},
  multitask_strategy: "reject",
  kwargs: {},
} as unknown as RunRecord;

/** The body's chunks as the server writes them (each one a socket write). */
async function chunks(response: Response): Promise<string[]> {
  const out: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) out.push(decoder.decode(chunk));
  return out;
}

test("events appended together leave in one chunk, in order, and the end is never held back", async () => {
  const events = createMemoryEventLog({ maxEvents: 100, retentionMs: 1000 });
  const context = {
    events,
    runs: { get: async () => run },
    queue: { cancel() {} },
    options: { heartbeatMs: 60_000, log() {} },
  } as unknown as ServerContext;
  await events.append("r1", "metadata", '{"run_id":"r1"}');
  const response = sseResponse(context, run, {
    after: "-1",
    cancelOnDisconnect: false,
    signal: new AbortController().signal,
  });
  const reading = chunks(response);
  await new Promise((resolve) => setTimeout(resolve, 20));
  // One graph step's events, appended one after the other as the worker does.
  await events.append("r1", "values", "1");
  await events.append("r1", "updates", "2");
  await events.append("r1", "messages", "3");
  await new Promise((resolve) => setTimeout(resolve, 20));
  await events.append("r1", "values", "4");
  await events.end("r1");
  const body = await reading;
  assert.deepEqual(body, [
    'event: metadata\ndata: {"run_id":"r1"}\nid: 1\n\n',
    "event: values\ndata: 1\nid: 2\n\nevent: updates\ndata: 2\nid: 3\n\nevent: messages\ndata: 3\nid: 4\n\n",
    "event: values\ndata: 4\nid: 5\n\nevent: end\ndata: null\nid: 6\n\n",
  ]);
});
