/**
 * The history archive on Postgres as two processes of one service see it: what one harness compacts,
 * another harness on the same database (its own home, its own pool) shows in `history()` and finds with
 * `search_history`, and nothing of it is written to a SQLite file. Skips with the reason without Postgres.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createHarness } from "../../src/agent/harness.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { createTempHome, ScriptedChatModel, testDatabase } from "../../src/testing/index.js";
import { createSearchHistoryTool } from "../../src/tools/search-history.js";
import { FIVE_TURNS } from "./five-turns.js";

test("two harnesses on one Postgres: one compacts a thread, the other shows its whole history and recalls a planted detail", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  const [homeA, homeB] = [createTempHome(), createTempHome()];
  const config = parseConfigText(
    `database: {backend: postgres, url: '${db.url}'}\nsandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\n` +
      "summarization: {enabled: true, trigger: {type: messages, value: 6}, keep: {type: messages, value: 2}}\n",
    { source: null, env: {} },
  );
  const chatModel = () =>
    new ScriptedChatModel(
      [
        (messages) => ({
          content: messages.some((m) => String(m.content).includes("<new_messages>")) ? "Summary: chatted." : "ok",
        }),
      ],
      { loop: true },
    );
  const a = await createHarness(config, { home: homeA.path, env: {}, chatModel: chatModel(), onWarning: () => {} });
  const b = await createHarness(config, { home: homeB.path, env: {}, chatModel: chatModel(), onWarning: () => {} });
  try {
    const thread = { configurable: { thread_id: "shared" } };
    for (const text of FIVE_TURNS) {
      await a.agent().invoke({ messages: [{ role: "user", content: text }] }, thread);
    }
    assert.equal(a.setup.archive, undefined, "no SQLite archive on Postgres");
    for (const home of [homeA, homeB])
      assert.ok(!existsSync(path.join(home.path, "checkpoints.sqlite")), "nothing written to a SQLite file");

    const entries = await b.history("shared");
    assert.ok(
      entries.some((entry) => entry.kind === "compaction"),
      "the other harness sees the compaction marker",
    );
    const said = entries.flatMap((entry) =>
      entry.kind === "message" && entry.message.type === "human" ? [entry.message.text] : [],
    );
    assert.deepEqual(
      said,
      ["My locker code is 8812.", "I like tea.", "Weather is nice.", "Done for today.", "One more thing."],
      "every user message once, in order",
    );

    assert.ok(b.agent().deerflow.toolNames.includes("search_history"));
    const found = String(
      await createSearchHistoryTool(b.setup.threadArchive!).invoke({ query: "locker code" }, thread),
    );
    assert.match(found, /^\[1\] message \d+, turn 1, user:\nMy locker code is 8812\./);
  } finally {
    await a.close();
    await b.close();
    homeA.cleanup();
    homeB.cleanup();
    await db.drop();
  }
});
