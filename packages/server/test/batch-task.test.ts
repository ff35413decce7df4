/**
 * `batch_task` through the server: progress reaches the stream as `batch_progress` custom events, a
 * failing item is retried up to `max_attempts` and then recorded as failed, the results file is an
 * artifact only its owner can read (another user gets 404), and bad calls get errors that say what to
 * fix without recording anything; deleting the thread deletes its batch. The crash test is batch-crash.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@langchain/langgraph-sdk";
import { addUser, issueToken } from "../src/auth/accounts.js";
import { collect, lastUserText, startTestServer } from "./helpers.js";

type Body = { messages: Array<{ role: string; content?: unknown }>; tools?: unknown[] };

const CALLS: Record<string, Record<string, unknown>> = {
  "batch small": {
    description: "Shout words",
    prompt_template: "Shout: {item}",
    items: ["a", "b", "bad", "c"],
    concurrency: 2,
    max_attempts: 2,
  },
  "batch none": { description: "Nothing", prompt_template: "Shout: {item}", items: [] },
  "batch many": {
    description: "Too many",
    prompt_template: "Shout: {item}",
    items: Array.from({ length: 10_001 }, (_, index) => `w${index}`),
  },
  "batch template": { description: "Same prompt", prompt_template: "Shout it", items: ["a", "b"] },
  "batch field": {
    description: "Missing field",
    prompt_template: "Shout: {item.word}",
    items: [{ word: "a" }, { other: 1 }],
  },
  "batch both": { description: "Both", items: ["a"], items_file: "/mnt/user-data/uploads/x.jsonl" },
};

function script(itemCalls: Map<string, number>) {
  return (body: Body) => {
    const text = lastUserText(body);
    if (!body.tools?.length && text.startsWith("Shout: ")) {
      const word = text.slice("Shout: ".length);
      itemCalls.set(word, (itemCalls.get(word) ?? 0) + 1);
      if (word === "bad") return { status: 500, error: { message: "the model is down for this one" } };
      return { content: word.toUpperCase() };
    }
    if (body.messages.some((message) => message.role === "tool")) return { content: "done" };
    const args = CALLS[text];
    return args ? { tool_calls: [{ name: "batch_task", arguments: args }] } : { content: "?" };
  };
}

test("batch_task streams progress, retries a failing item up to its limit, and writes an owner-only results file", async (t) => {
  const itemCalls = new Map<string, number>();
  const server = await startTestServer({ script: script(itemCalls) });
  t.after(() => server.close());
  const users = server.server.context.users;
  const client = async (name: string) => {
    const user = await addUser(users, { name, password: `${name}-password-123456`, admin: name === "root" });
    const { token } = await issueToken(users, user.id, "api", { name: "batch" });
    return { token, client: new Client({ apiUrl: server.url, apiKey: token, callerOptions: { maxRetries: 0 } }) };
  };
  await client("root");
  const alice = await client("alice");
  const bob = await client("bob");
  server.server.context.auth.refresh();

  const thread = (await alice.client.threads.create()).thread_id;
  const parts = await collect(
    alice.client.runs.stream(thread, "lead_agent", {
      input: { messages: [{ role: "user", content: "batch small" }] },
      context: { subagent_enabled: true },
      streamMode: ["custom", "values"],
    }),
  );
  const progress = parts
    .filter((part) => part.event === "custom")
    .map((part) => part.data as { type: string; done: number; failed: number; total: number });
  assert.ok(progress.length >= 2, "a first report and a last one");
  assert.ok(progress.every((event) => event.type === "batch_progress" && event.total === 4));
  assert.deepEqual(
    { done: progress.at(-1)!.done, failed: progress.at(-1)!.failed },
    { done: 3, failed: 1 },
    "the last report counts every item",
  );
  assert.equal(itemCalls.get("bad"), 2, "the failing item had max_attempts tries");
  assert.equal(itemCalls.get("a"), 1);

  const state = await alice.client.threads.getState<{
    messages: { type: string; content: string; additional_kwargs?: { batch?: { path: string } } }[];
    artifacts: string[];
  }>(thread);
  const result = state.values.messages.find((message) => message.type === "tool")!;
  assert.match(result.content, /3 of 4 items done, 1 failed/);
  const resultsPath = result.additional_kwargs!.batch!.path;
  assert.match(resultsPath, /^\/mnt\/user-data\/outputs\/batch-shout-words-[0-9a-f]{8}\.jsonl$/);
  assert.deepEqual(state.values.artifacts, [resultsPath], "the results file is listed as an artifact");

  const artifact = `${server.url}/threads/${thread}/artifacts${resultsPath}`;
  const own = await fetch(artifact, { headers: { "x-api-key": alice.token } });
  assert.equal(own.status, 200);
  const lines = (await own.text())
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.deepEqual(lines[0], { index: 0, item: "a", status: "done", attempts: 1, result: "A" });
  assert.equal(lines[2]!.status, "failed");
  assert.equal(lines[2]!.attempts, 2);
  assert.match(String(lines[2]!.error), /down for this one/);
  assert.equal(lines.length, 4);

  const other = await fetch(artifact, { headers: { "x-api-key": bob.token } });
  assert.equal(other.status, 404, "another user cannot read the results file");
  const anonymous = await fetch(artifact);
  assert.equal(anonymous.status, 401);

  const db = server.harness.setup.store!.db;
  const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  assert.deepEqual([count("deerflow_batches"), count("deerflow_batch_items")], [1, 4]);
  await alice.client.threads.delete(thread);
  assert.deepEqual([count("deerflow_batches"), count("deerflow_batch_items")], [0, 0], "deleted with the thread");
});

test("batch_task refuses bad calls with what to fix, and records nothing", async (t) => {
  const itemCalls = new Map<string, number>();
  const server = await startTestServer({ script: script(itemCalls) });
  t.after(() => server.close());
  const expected: Record<string, RegExp> = {
    "batch none": /items has no items\. Give at least one item/,
    "batch many": /items has 10001 items; one batch takes at most 10000\. Split/,
    "batch template": /prompt_template has no \{item\} placeholder/,
    "batch field": /item 1 has no field "word"/,
    "batch both": /either inline in `items` or as a file in `items_file`, not both/,
  };
  for (const [command, error] of Object.entries(expected)) {
    const thread = (await server.client.threads.create()).thread_id;
    await server.client.runs.wait(thread, "lead_agent", {
      input: { messages: [{ role: "user", content: command }] },
      context: { subagent_enabled: true },
    });
    const state = await server.client.threads.getState<{
      messages: { type: string; content: string; status?: string }[];
    }>(thread);
    const result = state.values.messages.find((message) => message.type === "tool")!;
    assert.match(result.content, error, command);
    assert.equal(result.status, "error", command);
  }
  assert.equal(itemCalls.size, 0, "no item ran");
  const db = server.harness.setup.store!.db;
  assert.deepEqual(db.prepare("SELECT count(*) AS n FROM deerflow_batches").get(), { n: 0 }, "no batch recorded");
});
