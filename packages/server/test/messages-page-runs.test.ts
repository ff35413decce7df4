/**
 * `messages/page` rows name the run that wrote them, also for messages summarization moved to the
 * archive: DeerFlow's frontend merges history with the live stream by run id and message id, and hides
 * the rows of runs it superseded.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChatCompletionRequest } from "@deerflow/harness/testing";
import { collect, lastUserText, startTestServer } from "./helpers.js";

type Page = { data: Array<{ run_id: string | null; content: { type: string; content: string } }> };

test("messages/page: compacted and live rows carry their run; a message written through state has none", async () => {
  const t = await startTestServer({
    yaml: "summarization: {enabled: true, trigger: {type: messages, value: 4}, keep: {type: messages, value: 2}}",
    script: (body: ChatCompletionRequest) =>
      JSON.stringify(body.messages).includes("<new_messages>")
        ? { content: "Summary: a chat." }
        : { content: `re: ${lastUserText(body)}` },
  });
  try {
    const thread = await t.client.threads.create();
    // Written before any run, as a client seeding a conversation would.
    await t.client.threads.updateState(thread.thread_id, {
      values: { messages: [{ type: "human", content: "zero", id: "seeded-0" }] },
    });
    const runIds: string[] = [];
    for (const text of ["one", "two", "three"]) {
      const parts = await collect(
        t.client.runs.stream(thread.thread_id, "lead_agent", {
          input: { messages: [{ role: "user", content: text }] },
          streamMode: ["values"],
        }),
      );
      runIds.push((parts[0]!.data as { run_id: string }).run_id);
    }
    const page = (await (
      await fetch(`${t.url}/api/threads/${thread.thread_id}/messages/page?limit=50`)
    ).json()) as Page;
    const live = (await t.client.threads.getState(thread.thread_id)).values as { messages: unknown[] };
    assert.ok(live.messages.length < page.data.length, "summarization moved messages to the archive");
    assert.deepEqual(
      page.data.map((row) => [`${row.content.type}:${row.content.content}`, row.run_id]),
      [
        ["human:zero", null],
        ["human:one", runIds[0]],
        ["ai:re: one", runIds[0]],
        ["human:two", runIds[1]],
        ["ai:re: two", runIds[1]],
        ["human:three", runIds[2]],
        ["ai:re: three", runIds[2]],
      ],
    );
  } finally {
    await t.close();
  }
});
