/**
 * DeerFlow's Scheduled tasks routes (docs/schedules.md) with plain fetch, replaying the calls DeerFlow's
 * web app makes in its order (list, create, list, runs, pause, resume, trigger, runs, delete), against
 * a real server on SQLite: tasks are crons, a "once" task fires once and reports completed, a trigger
 * is a manual firing listed among the runs, and every bad body gets a 422 that says what is wrong. The
 * page's calls and a once task run on Postgres too.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { testDatabase } from "@deerflow/harness/testing";
import { startTestServer, type TestServer, until } from "./helpers.js";

type Json = Record<string, unknown>;

/** A JSON request to the gateway, as the web app sends it. */
async function call(
  s: TestServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Json & Json[] }> {
  const response = await fetch(`${s.url}/api${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Json & Json[] };
}

const ANSWER = "Here is your brief.";

/** The page's calls in its order, checked. */
async function pageCalls(s: TestServer): Promise<void> {
  assert.deepEqual((await call(s, "GET", "/scheduled-tasks")).json, []);
  const created = await call(s, "POST", "/scheduled-tasks", {
    title: "Morning brief",
    prompt: "Brief me on the news",
    schedule_type: "cron",
    schedule_spec: { cron: "0   9 * *  1-5" },
    timezone: "Asia/Shanghai",
  });
  assert.equal(created.status, 200, JSON.stringify(created.json));
  const task = created.json;
  assert.equal(task.title, "Morning brief");
  assert.equal(task.context_mode, "fresh_thread_per_run");
  assert.deepEqual(task.schedule_spec, { cron: "0 9 * * 1-5" }, "the expression is normalized");
  assert.equal(task.status, "enabled");
  assert.equal(task.thread_id, null);
  assert.equal((task.next_run_at as string).slice(11, 19), "01:00:00", "09:00 in Shanghai is 01:00 UTC");
  const id = task.id as string;

  const listed = (await call(s, "GET", "/scheduled-tasks")).json;
  assert.deepEqual(
    listed.map((one) => one.id),
    [id],
  );
  assert.deepEqual((await call(s, "GET", `/scheduled-tasks/${id}/runs?limit=50&offset=0`)).json, []);

  const paused = await call(s, "POST", `/scheduled-tasks/${id}/pause`);
  assert.equal(paused.json.status, "paused");
  assert.equal(paused.json.next_run_at, null);
  const resumed = await call(s, "POST", `/scheduled-tasks/${id}/resume`);
  assert.equal(resumed.json.status, "enabled");

  assert.deepEqual((await call(s, "POST", `/scheduled-tasks/${id}/trigger`)).json, { id, triggered: true });
  let runs: Json[] = [];
  await until(
    async () => {
      runs = (await call(s, "GET", `/scheduled-tasks/${id}/runs?limit=50&offset=0`)).json;
      return runs.length === 1 && runs[0]!.status === "success";
    },
    10_000,
    "the triggered run",
  );
  const [run] = runs;
  assert.equal(run!.trigger, "manual");
  assert.equal(run!.task_id, id);
  const state = await s.client.threads.getState(run!.thread_id as string);
  const messages = (state.values as { messages: Array<{ type: string; content: unknown }> }).messages;
  assert.equal(messages[0]!.content, "Brief me on the news", "the prompt is the run's user message");
  assert.equal(messages.at(-1)!.content, ANSWER);
  assert.equal((await call(s, "GET", `/scheduled-tasks/${id}`)).json.run_count, 1);

  assert.deepEqual((await call(s, "DELETE", `/scheduled-tasks/${id}`)).json, { id, deleted: true });
  assert.equal((await call(s, "GET", `/scheduled-tasks/${id}`)).status, 404);
  assert.deepEqual((await call(s, "GET", "/scheduled-tasks")).json, []);
}

/** A once task on a thread: fires at its time, then reports completed. */
async function onceTask(s: TestServer): Promise<void> {
  const thread = await s.client.threads.create();
  const runAt = new Date(Date.now() + 1500).toISOString();
  const created = await call(s, "POST", "/scheduled-tasks", {
    context_mode: "reuse_thread",
    thread_id: thread.thread_id,
    title: "Reminder",
    prompt: "Remind me",
    schedule_type: "once",
    schedule_spec: { run_at: runAt },
    timezone: "UTC",
  });
  assert.equal(created.status, 200, JSON.stringify(created.json));
  const id = created.json.id as string;
  assert.equal(created.json.next_run_at, runAt);
  const renamed = await call(s, "PATCH", `/scheduled-tasks/${id}`, { title: "Reminder (renamed)" });
  assert.equal(renamed.json.title, "Reminder (renamed)");
  await until(
    async () => (await call(s, "GET", `/scheduled-tasks/${id}`)).json.status === "completed",
    15_000,
    "the once task to complete",
  );
  const done = (await call(s, "GET", `/scheduled-tasks/${id}`)).json;
  assert.equal(done.next_run_at, null);
  assert.equal(done.last_thread_id, thread.thread_id);
  const runs = (await call(s, "GET", `/scheduled-tasks/${id}/runs`)).json;
  assert.deepEqual(
    runs.map((run) => [run.trigger, run.status, run.scheduled_for]),
    [["scheduled", "success", runAt]],
  );
  assert.deepEqual(
    (await call(s, "GET", `/threads/${thread.thread_id}/scheduled-tasks`)).json.map((one) => one.id),
    [id],
  );
}

test("the Scheduled tasks page's calls, in its order: list, create, runs, pause, resume, trigger, runs, delete", async (t) => {
  const s = await startTestServer({ script: () => ({ content: ANSWER }) });
  t.after(() => s.close());
  await pageCalls(s);
});

test("a once task fires at its time on its thread, then reports completed; a PATCH renames it", async (t) => {
  const s = await startTestServer({ script: () => ({ content: ANSWER }) });
  t.after(() => s.close());
  await onceTask(s);
});

test("on Postgres: the page's calls and a once task", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  t.after(() => db.drop());
  const s = await startTestServer({
    script: () => ({ content: ANSWER }),
    yaml: `database: {backend: postgres, url: '${db.url}'}`,
  });
  t.after(() => s.close());
  await pageCalls(s);
  await onceTask(s);
});

test("bad scheduled-task bodies are 422s that say what is wrong", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const base = {
    title: "T",
    prompt: "P",
    schedule_type: "cron",
    schedule_spec: { cron: "0 9 * * *" },
    timezone: "UTC",
  };
  const cases: Array<[Json, RegExp]> = [
    [{ ...base, context_mode: "sometimes" }, /unsupported context_mode/],
    [{ ...base, context_mode: "reuse_thread" }, /reuse_thread requires thread_id/],
    [{ ...base, schedule_type: "weekly" }, /unsupported schedule_type/],
    [{ ...base, schedule_spec: {} }, /cron schedule requires schedule_spec\.cron/],
    [{ ...base, schedule_spec: { cron: "0 0 9 * * *" } }, /6 fields/],
    [{ ...base, timezone: "Mars/Olympus" }, /Invalid timezone/],
    [{ ...base, title: "" }, /title/],
    [{ ...base, schedule_type: "once", schedule_spec: { run_at: "2020-01-01T09:00:00" } }, /must be in the future/],
  ];
  for (const [body, message] of cases) {
    const answer = await call(s, "POST", "/scheduled-tasks", body);
    assert.equal(answer.status, 422, JSON.stringify(body));
    assert.match(JSON.stringify(answer.json), message);
  }
  const missing = await call(s, "POST", "/scheduled-tasks", {
    ...base,
    context_mode: "reuse_thread",
    thread_id: "00000000-0000-0000-0000-000000000000",
  });
  assert.equal(missing.status, 404);
  const plainCron = await s.client.crons.create("lead_agent", { schedule: "0 9 * * *" });
  assert.equal((await call(s, "GET", `/scheduled-tasks/${plainCron.cron_id}`)).status, 404, "a plain cron is no task");
});
