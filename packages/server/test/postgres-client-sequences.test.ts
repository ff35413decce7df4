/**
 * agent-chat-ui's regenerate and edit on a Postgres-backed server under the default checkpoint retention
 * (`client-sequences.test.ts` has them on SQLite): the Postgres pruner keeps the history chain whole too.
 * Skips with the reason without Postgres.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { testDatabase } from "@deerflow/harness/testing";
import type { Message } from "@langchain/langgraph-sdk";
import { agentChatUi, danglingParents, numberedAnswers, textOf, twoTurns } from "./agent-chat-ui.js";
import { startTestServer } from "./helpers.js";

test("Postgres, default retention: agent-chat-ui regenerates the last answer, then edits the second message; the first turn stays", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  const server = await startTestServer({
    script: numberedAnswers(),
    yaml: `database: {backend: postgres, url: '${db.url}'}`,
  });
  try {
    const { ui, threadId } = await twoTurns(server.url);
    const values = async () =>
      (await server.client.threads.getState<{ messages: Message[] }>(threadId)).values.messages.map(
        (message) => `${message.type}: ${textOf(message)}`,
      );
    try {
      await ui.regenerate(ui.messages().at(-1)!);
      assert.deepEqual(ui.errors, [], "the regenerate run did not fail");
      const regenerated = [
        "human: first question",
        "ai: answer 1 to first question",
        "human: second question",
        "ai: answer 3 to second question",
      ];
      assert.deepEqual(ui.transcript(), regenerated);
      assert.deepEqual(await values(), regenerated);
      assert.deepEqual(await danglingParents(server.client, threadId), []);

      await ui.edit(ui.messages()[2]!, "second question, edited");
      assert.deepEqual(ui.errors, []);
      const edited = [
        "human: first question",
        "ai: answer 1 to first question",
        "human: second question, edited",
        "ai: answer 4 to second question, edited",
      ];
      assert.deepEqual(await values(), edited, "the thread keeps the first turn");
      assert.deepEqual(ui.transcript(), edited);
      assert.deepEqual(await danglingParents(server.client, threadId), []);
      const reloaded = await agentChatUi(server.url, threadId);
      assert.deepEqual(reloaded.transcript(), edited, "a reload shows the same conversation");
      reloaded.close();
    } finally {
      ui.close();
    }
  } finally {
    await server.close();
    await db.drop();
  }
});
