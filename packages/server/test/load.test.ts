/**
 * Many streamed runs at once on different threads: every run completes, and every client receives its
 * run's events exactly once and in order (ids strictly increasing, metadata first, end last).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { collect, lastUserText, startTestServer } from "./helpers.js";

test("30 concurrent streamed runs all complete with every event once and in order", async () => {
  const t = await startTestServer({ script: (body) => ({ content: `answer to ${lastUserText(body)}` }) });
  try {
    const results = await Promise.all(
      Array.from({ length: 30 }, async (_, index) => {
        const thread = await t.client.threads.create();
        const parts = await collect(
          t.client.runs.stream(thread.thread_id, "lead_agent", {
            input: { messages: [{ role: "user", content: `q${index}` }] },
            streamMode: ["values", "messages-tuple", "updates"],
          }),
        );
        return { index, thread, parts };
      }),
    );
    for (const { index, thread, parts } of results) {
      const ids = parts.map((part) => Number((part as { id?: string }).id));
      assert.equal(parts[0]!.event, "metadata");
      assert.equal(parts.at(-1)!.event, "end");
      assert.deepEqual(
        ids,
        ids.map((_, position) => position + 1),
        `run ${index}: ids 1..n, none missing or repeated`,
      );
      const failure = parts.find((part) => part.event === "error");
      assert.equal(failure, undefined, `run ${index} failed: ${JSON.stringify(failure?.data)}`);
      const final = parts.filter((part) => part.event === "values").at(-1)!.data as { messages: { content: string }[] };
      assert.equal(final.messages.at(-1)!.content, `answer to q${index}`);
      assert.equal((parts[0]!.data as { thread_id: string }).thread_id, thread.thread_id);
    }
  } finally {
    await t.close();
  }
});
