/**
 * In-process check of the Postgres run machinery: two servers in one process on one fresh database, a run
 * streamed on one and listed, joined and replayed on the other, and `/ok` reporting the database.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { testDatabase } from "@deerflow/harness/testing";
import { collect, startTestServer } from "./helpers.js";

test("smoke: a run on postgres, streamed and joined from a second server on the same database", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  t.after(() => db.drop());
  const yaml = `database: {backend: postgres, url: '${db.url}'}`;
  const a = await startTestServer({ yaml });
  const b = await startTestServer({ yaml });
  try {
    const thread = await a.client.threads.create();
    const parts = await collect(
      a.client.runs.stream(thread.thread_id, "lead_agent", {
        input: { messages: [{ role: "user", content: "hi" }] },
        streamMode: ["values", "messages-tuple"],
      }),
    );
    assert.deepEqual([...new Set(parts.map((p) => p.event))], ["metadata", "values", "messages", "end"]);
    const runs = await b.client.runs.list(thread.thread_id);
    assert.equal(runs.length, 1);
    assert.equal(runs[0]!.status, "success");
    const state = await b.client.threads.getState(thread.thread_id);
    assert.equal((state.values as { messages: unknown[] }).messages.length, 2);
    const run = await b.client.runs.create(thread.thread_id, "lead_agent", {
      input: { messages: [{ role: "user", content: "again" }] },
    });
    await b.client.runs.join(thread.thread_id, run.run_id);
    const replay = await collect(
      a.client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1" } as never),
    );
    assert.ok(
      replay.some((p) => p.event === "values"),
      JSON.stringify(replay.map((p) => p.event)),
    );
    const ok = (await fetch(`${b.url}/ok`).then((r) => r.json())) as { database: { ok: boolean } };
    assert.equal(ok.database.ok, true);
  } finally {
    console.log(a.logs.join("\n"), b.logs.join("\n"));
    await a.close();
    await b.close();
  }
});
