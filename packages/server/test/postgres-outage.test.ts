/**
 * The database drops every connection in the middle of a run (a failover, a restart): the run still
 * ends with `end`, the server keeps answering, notifications reconnect, and the next run works.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { testDatabase } from "@deerflow/harness/testing";
import pg from "pg";
import { collect, gate, lastUserText, startTestServer, until } from "./helpers.js";

test("every database connection dropped mid-run: the run ends, the server recovers, the next run works", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  t.after(() => db.drop());
  const block = gate();
  t.after(() => block.open());
  const server = await startTestServer({
    yaml: `database: {backend: postgres, url: '${db.url}'}`,
    script: async (body) => {
      if (lastUserText(body) === "slow") await block.wait;
      return { content: `echo ${lastUserText(body)}` };
    },
  });
  t.after(() => server.close());
  const thread = await server.client.threads.create();
  const run = await server.client.runs.create(thread.thread_id, "lead_agent", {
    input: { messages: [{ role: "user", content: "slow" }] },
  });
  await until(() => server.fake.requests.length > 0, 10_000, "the model call");
  const watching = collect(server.client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1" }));

  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
  );
  await admin.end();
  block.open();

  const parts = await watching;
  assert.equal(parts.at(-1)?.event, "end", parts.map((part) => part.event).join(","));
  const settled = await server.client.runs.get(thread.thread_id, run.run_id);
  assert.ok(["success", "error"].includes(settled.status), settled.status);
  const ok = (await (await fetch(`${server.url}/ok`)).json()) as { ok: boolean };
  assert.equal(ok.ok, true);
  const next = (await server.client.runs.wait(thread.thread_id, "lead_agent", {
    input: { messages: [{ role: "user", content: "again" }] },
  })) as { messages: { content: unknown }[] };
  assert.equal(next.messages.at(-1)!.content, "echo again");
});
