/**
 * The history archive through the server on Postgres: messages summarization compacted on one server are
 * in the `messages/page` of another server on the same database (each with its own home), a thread copy
 * carries them, and deleting the thread removes them from the database. Skips with the reason without Postgres.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ChatCompletionRequest, testDatabase } from "@deerflow/harness/testing";
import pg from "pg";
import { collect, lastUserText, startTestServer } from "./helpers.js";

type Page = { data: Array<{ seq: number; content: { type: string; content: string } }>; has_more: boolean };

test("compacted messages on Postgres: paged by another server, copied with the thread, deleted with it", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  const yaml = `database: {backend: postgres, url: '${db.url}'}\nsummarization: {enabled: true, trigger: {type: messages, value: 4}, keep: {type: messages, value: 2}}`;
  const script = (body: ChatCompletionRequest) =>
    JSON.stringify(body.messages).includes("<new_messages>")
      ? { content: "Summary: a chat." }
      : { content: `re: ${lastUserText(body)}` };
  const a = await startTestServer({ yaml, script });
  const b = await startTestServer({ yaml, script });
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  try {
    const thread = await a.client.threads.create();
    for (const text of ["one", "two", "three"]) {
      await collect(
        a.client.runs.stream(thread.thread_id, "lead_agent", {
          input: { messages: [{ role: "user", content: text }] },
          streamMode: ["values"],
        }),
      );
    }
    const archived = await sql.query("SELECT kind FROM history_archive WHERE thread_id = $1", [thread.thread_id]);
    assert.ok(
      archived.rows.some((row) => row.kind === "compaction"),
      "a compaction was archived in Postgres",
    );

    const page = async (server: typeof a, threadId: string) =>
      ((await (await fetch(`${server.url}/api/threads/${threadId}/messages/page?limit=50`)).json()) as Page).data.map(
        (entry) => `${entry.content.type}:${entry.content.content}`,
      );
    const expected = ["human:one", "ai:re: one", "human:two", "ai:re: two", "human:three", "ai:re: three"];
    assert.deepEqual(await page(b, thread.thread_id), expected, "the other server pages the compacted messages too");

    const copy = await b.client.threads.copy(thread.thread_id);
    assert.deepEqual(await page(a, copy.thread_id), expected, "a copy carries the archive");

    await b.client.threads.delete(thread.thread_id);
    for (const table of ["history_archive", "history_search"]) {
      assert.equal(
        (await sql.query(`SELECT 1 FROM ${table} WHERE thread_id = $1`, [thread.thread_id])).rowCount,
        0,
        `${table} rows of the deleted thread`,
      );
      assert.ok(
        ((await sql.query(`SELECT 1 FROM ${table} WHERE thread_id = $1`, [copy.thread_id])).rowCount ?? 0) > 0,
        `${table} rows of the copy stay`,
      );
    }
  } finally {
    await sql.end();
    await a.close();
    await b.close();
    await db.drop();
  }
});
