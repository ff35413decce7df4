import assert from "node:assert/strict";
import { test } from "node:test";
import { createMemoryEventLog } from "./memory-event-log.js";
import type { GapEvent, StreamEvent } from "./types.js";

async function read(iterable: AsyncIterable<StreamEvent | GapEvent>): Promise<(StreamEvent | GapEvent)[]> {
  const out: (StreamEvent | GapEvent)[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

test("a follower sees live events in order and stops at end; end is kept when the log is full", async () => {
  const signal = new AbortController().signal;
  const live = createMemoryEventLog({ maxEvents: 100, retentionMs: 50 });
  await live.append("r", "metadata", "{}");
  const reading = read(live.follow("r", "-1", signal));
  for (let index = 0; index < 2; index++) await live.append("r", "values", String(index));
  await live.end("r");
  const items = (await reading) as StreamEvent[];
  assert.deepEqual(
    items.map((item) => item.id),
    ["1", "2", "3", "4"],
  );

  const log = createMemoryEventLog({ maxEvents: 3, retentionMs: 50 });
  await log.append("r", "metadata", "{}");
  for (let index = 0; index < 2; index++) await log.append("r", "values", String(index));
  await log.end("r");
  const replay = (await read(log.follow("r", "-1", signal))) as StreamEvent[];
  assert.deepEqual(
    replay.map((item) => item.event),
    ["values", "values", "end"],
    "the oldest event went, end stayed",
  );
  const gap = await read(log.follow("r", "0", signal));
  assert.equal((gap[0] as GapEvent).gap.earliest_available_event_id, "2");
  assert.equal(await log.append("r", "values", "late"), "", "nothing is appended after end");
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(await log.has("r"), false, "the log expires after the retention time");
  assert.deepEqual(await read(log.follow("r", "-1", signal)), []);
});

test("a follower without a cursor sees only new events; abort stops it", async () => {
  const log = createMemoryEventLog({ maxEvents: 100, retentionMs: 1000 });
  await log.append("r", "metadata", "{}");
  const controller = new AbortController();
  const reading = read(log.follow("r", null, controller.signal));
  await log.append("r", "values", "1");
  await new Promise((resolve) => setTimeout(resolve, 10));
  controller.abort();
  const items = (await reading) as StreamEvent[];
  assert.deepEqual(
    items.map((item) => item.id),
    ["2"],
  );
  await log.drop("r");
});

test("a cursor at or past the end of a finished run's log gets that end at once, and nothing else", async () => {
  const signal = new AbortController().signal;
  const log = createMemoryEventLog({ maxEvents: 100, retentionMs: 1000 });
  await log.append("r", "metadata", "{}");
  await log.append("r", "values", "1");
  await log.end("r");
  for (const cursor of ["3", "4", "999999", null]) {
    assert.deepEqual(
      await read(log.follow("r", cursor, signal)),
      [{ id: "3", event: "end", data: "null" }],
      `${cursor}`,
    );
  }
  await log.drop("r");
});

test("events appended while a follower is between two of its reads reach it, the end included", async () => {
  const log = createMemoryEventLog({ maxEvents: 100, retentionMs: 1000 });
  await log.append("r", "metadata", "{}");
  const reading = read(log.follow("r", "-1", new AbortController().signal));
  await new Promise((resolve) => setTimeout(resolve, 5));
  // Appended in one go, as the worker's last step and the run's end are: the follower is woken by the
  // first and is still handing it on when the others come.
  await log.append("r", "values", "1");
  await log.append("r", "values", "2");
  await log.end("r");
  const items = (await reading) as StreamEvent[];
  assert.deepEqual(
    items.map((item) => item.event),
    ["metadata", "values", "values", "end"],
  );
});
