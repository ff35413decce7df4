/**
 * The server takes thread ids by the harness's one rule (`isValidThreadId`). It used to accept "a..b",
 * which the harness then refused when the run first named the thread's directory: a thread that could be
 * created but never run.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startTestServer, type TestServer } from "./helpers.js";

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.close());

const create = (thread_id: string) =>
  fetch(`${t.url}/threads`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ thread_id }),
  });

test("a thread id with '..' is a 422 naming the rule; one with a single '.' is created and runs", async () => {
  const refused = await create("a..b");
  assert.equal(refused.status, 422);
  assert.match(((await refused.json()) as { detail: string }).detail, /thread_id.*no "\.\."/);

  const created = await create("run.2");
  assert.equal(created.status, 200);
  const result = await t.client.runs.wait("run.2", "lead_agent", {
    input: { messages: [{ role: "user", content: "hi" }] },
  });
  assert.match(JSON.stringify(result), /Hello from the fake model/);
});
