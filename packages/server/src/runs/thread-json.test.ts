import assert from "node:assert/strict";
import { test } from "node:test";
import { THREAD_FIELDS } from "./store-rows.js";
import { threadsJson } from "./thread-json.js";

/** Two stored rows as a search reads them: every column, the JSON ones as stored text. */
const ROWS = [
  [
    "t-1",
    "2026-01-01T00:00:00.000Z",
    "2026-01-02T00:00:00.000Z",
    "2026-01-03T00:00:00.000Z",
    '{"title":"Hi \\"there\\"","n":[1,2.5,null],"ünï":"çödé"}',
    "interrupted",
    '{"messages":[{"type":"human","content":"line\\nbreak"}]}',
    '{"task-1":[{"value":"why?","id":"i-1"}]}',
    'failed: "quoted"\nand\ttabbed',
  ],
  [
    "t-2",
    "2026-01-01T00:00:00.000Z",
    "2026-01-01T00:00:00.000Z",
    "2026-01-01T00:00:00.000Z",
    "{}",
    "idle",
    null,
    "{}",
    null,
  ],
];

/** The `Thread` objects the route wrote before, from the same rows (parse, drop nothing, add `config`). */
function parsedThreads(fields: readonly string[], rows: readonly (readonly (string | null)[])[]) {
  return rows.map((row) => {
    const thread: Record<string, unknown> = {};
    fields.forEach((field, index) => {
      const cell = row[index] ?? null;
      thread[field] = cell !== null && ["metadata", "values", "interrupts"].includes(field) ? JSON.parse(cell) : cell;
    });
    return { ...thread, config: {} };
  });
}

test("threadsJson writes the bytes JSON.stringify wrote for the parsed threads, key order included", () => {
  assert.equal(threadsJson(THREAD_FIELDS, ROWS), JSON.stringify(parsedThreads(THREAD_FIELDS, ROWS)));
  assert.equal(threadsJson(THREAD_FIELDS, []), "[]");
});

test("threadsJson with select: the named fields that exist, in the client's order, once each", () => {
  const columns = ["thread_id", "updated_at", "metadata", "values"] as const;
  const rows = ROWS.map((row) => [row[0]!, row[2]!, row[4]!, row[6] ?? null]);
  assert.equal(
    threadsJson(columns, rows, ["values", "thread_id", "owner", "config", "metadata", "values", "nope"]),
    JSON.stringify(
      parsedThreads(columns, rows).map((thread) => ({
        values: thread.values,
        thread_id: thread.thread_id,
        config: {},
        metadata: thread.metadata,
      })),
    ),
  );
  assert.equal(
    threadsJson(["thread_id"], [["t-1"]], ["owner", "nope"]),
    "[{}]",
    "nothing known selected: empty objects",
  );
  assert.equal(threadsJson(THREAD_FIELDS, ROWS, []), threadsJson(THREAD_FIELDS, ROWS), "an empty select is no select");
});
