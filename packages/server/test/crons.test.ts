/**
 * Crons (docs/schedules.md) through the official SDK's `client.crons` against a real server on SQLite:
 * every route, the validation a person gets for a bad schedule or time zone, and firing: a due cron
 * starts one ordinary run as its owner, a due time whose previous run is still going is skipped and
 * counted, and a firing interrupted by a dead process is finished without a second run. Tests make a
 * cron due by setting its next_run_at in the store to now (no waiting for a minute to turn).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Client } from "@langchain/langgraph-sdk";
import { addUser, createCron, removeUser } from "../src/index.js";
import { firingIds } from "../src/crons/firing-ids.js";
import { startCronRun } from "../src/crons/start-cron-run.js";
import type { CronRecord } from "../src/crons/types.js";
import { gate, lastUserText, startTestServer, type TestServer, until } from "./helpers.js";

const say = (content: string) => ({ messages: [{ role: "user", content }] });

/** The cron as the API shows it now. */
async function cronOf(client: Client, cronId: string): Promise<Record<string, unknown>> {
  const [cron] = (await client.crons.search({ limit: 1000 })).filter((one) => one.cron_id === cronId);
  assert.ok(cron, `cron ${cronId} is listed`);
  return cron as unknown as Record<string, unknown>;
}

/** Makes the cron due now and tells the scheduler, as a minute turning would. */
async function makeDue(s: TestServer, cronId: string): Promise<void> {
  await s.server.context.crons.update(cronId, null, { next_run_at: new Date().toISOString() });
  await s.server.context.announceCrons();
}

/** Runs whose metadata names the cron, from the run table. */
async function runsOfCron(s: TestServer, threadId: string, cronId: string) {
  const runs = await s.server.context.runs.list(threadId, { limit: 100, offset: 0 });
  return runs.filter((run) => run.metadata.cron_id === cronId);
}

test("client.crons: create (stateless and on a thread), search, count, update and delete", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const info = (await (await fetch(`${s.url}/info`)).json()) as { flags: { crons: boolean } };
  assert.equal(info.flags.crons, true, "/info says crons are served");
  const thread = await s.client.threads.create();
  const daily = await s.client.crons.create("lead_agent", {
    schedule: "0 9 * * 1-5",
    timezone: "Asia/Shanghai",
    input: say("Brief me"),
    metadata: { team: "alpha" },
  });
  const created = daily as unknown as Record<string, unknown>;
  assert.equal(created.schedule, "0 9 * * 1-5");
  assert.equal(created.timezone, "Asia/Shanghai");
  assert.equal(created.thread_id, null);
  assert.equal(created.enabled, true);
  assert.equal(created.on_run_completed, "delete");
  assert.equal(created.catch_up, "latest");
  assert.deepEqual(daily.payload, { input: say("Brief me") });
  // 09:00 in Shanghai is 01:00 UTC, on a weekday.
  const next = new Date(daily.next_run_date);
  assert.equal(next.toISOString().slice(11, 19), "01:00:00");
  assert.ok(next.getUTCDay() >= 1 && next.getUTCDay() <= 5 && next > new Date());

  const quarter = await s.client.crons.createForThread(thread.thread_id, "lead_agent", {
    schedule: "*/15 * * * *",
    input: say("Check the queue"),
  });
  assert.equal(quarter.thread_id, thread.thread_id);
  assert.equal((quarter as unknown as Record<string, unknown>).timezone, "UTC");

  assert.equal((await s.client.crons.search()).length, 2);
  assert.deepEqual(
    (await s.client.crons.search({ threadId: thread.thread_id })).map((cron) => cron.cron_id),
    [quarter.cron_id],
  );
  assert.deepEqual(
    (await s.client.crons.search({ metadata: { team: "alpha" } })).map((cron) => cron.cron_id),
    [daily.cron_id],
  );
  assert.deepEqual(
    (await s.client.crons.search({ sortBy: "next_run_date", sortOrder: "asc" })).map((cron) => cron.cron_id),
    [quarter.cron_id, daily.cron_id],
  );
  const [picked] = await s.client.crons.search({ select: ["cron_id", "schedule"], limit: 1, offset: 1 });
  assert.deepEqual(Object.keys(picked!).sort(), ["cron_id", "schedule"]);
  assert.equal(await s.client.crons.count(), 2);
  assert.equal(await s.client.crons.count({ threadId: thread.thread_id }), 1);
  assert.equal(await s.client.crons.count({ assistantId: "someone-else" }), 0);

  const updated = await s.client.crons.update(daily.cron_id, {
    schedule: "30 8 * * *",
    enabled: false,
    input: say("Brief me, briefly"),
  });
  assert.equal(updated.schedule, "30 8 * * *");
  assert.equal(updated.enabled, false);
  assert.deepEqual(updated.payload, { input: say("Brief me, briefly") });
  assert.equal(new Date(updated.next_run_date!).toISOString().slice(11, 19), "00:30:00");
  assert.deepEqual(
    (await s.client.crons.search({ enabled: false })).map((cron) => cron.cron_id),
    [daily.cron_id],
  );

  await s.client.crons.delete(quarter.cron_id);
  assert.equal(await s.client.crons.count(), 1);
  await assert.rejects(s.client.crons.delete(quarter.cron_id), /404/);
  await assert.rejects(s.client.crons.update(quarter.cron_id, { enabled: true }), /404/);
});

test("a bad schedule or time zone is a 422 that says what is wrong and gives an example", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  await assert.rejects(
    s.client.crons.create("lead_agent", { schedule: "0 0 9 * * 1-5" }),
    (error: Error & { status?: number }) =>
      error.status === 422 && /6 fields/.test(error.message) && /0 9 \* \* 1-5/.test(error.message),
  );
  await assert.rejects(
    s.client.crons.create("lead_agent", { schedule: "0 25 * * *" }),
    (error: Error & { status?: number }) => error.status === 422 && /0 25 \* \* \*/.test(error.message),
  );
  await assert.rejects(
    s.client.crons.create("lead_agent", { schedule: "0 9 * * *", timezone: "Mars/Olympus" }),
    (error: Error & { status?: number }) =>
      error.status === 422 && /Mars\/Olympus/.test(error.message) && /Asia\/Shanghai/.test(error.message),
  );
  const cron = await s.client.crons.create("lead_agent", { schedule: "0 9 * * *" });
  await assert.rejects(s.client.crons.update(cron.cron_id, { schedule: "every day" }), /422/);
  await assert.rejects(s.client.crons.create("no-such-agent", { schedule: "0 9 * * *" }), /404/);
  await assert.rejects(
    s.client.crons.createForThread("0190f000-0000-7000-8000-000000000000", "lead_agent", { schedule: "0 9 * * *" }),
    /404/,
  );
  assert.equal(await s.client.crons.count(), 1, "nothing was stored for the refused requests");
});

test("a due stateless cron fires one ordinary run on a new thread, deleted after the run; then it waits for its next due time", async (t) => {
  const s = await startTestServer({ cronMaxSleepMs: 60_000 });
  t.after(() => s.close());
  const cron = await s.client.crons.create("lead_agent", { schedule: "0 9 * * *", input: say("Good morning") });
  await makeDue(s, cron.cron_id);
  await until(async () => (await cronOf(s.client, cron.cron_id)).last_run_id !== null, 10_000, "the firing");
  const fired = await cronOf(s.client, cron.cron_id);
  const runId = fired.last_run_id as string;
  const run = await s.server.context.runs.get(runId);
  assert.equal(run?.metadata.cron_id, cron.cron_id);
  assert.equal(run?.kwargs.temporary, true);
  const output = (await (await fetch(`${s.url}/runs/${runId}/join`)).json()) as {
    messages: Array<{ content: string }>;
  };
  assert.equal(output.messages.at(-1)?.content, "Hello from the fake model.");
  await until(
    async () => (await s.client.threads.get(run!.thread_id).catch(() => null)) === null,
    10_000,
    "the firing's thread to be deleted (on_run_completed: delete)",
  );
  assert.ok(new Date(fired.next_run_date as string) > new Date(), "the next due time is in the future");
  assert.equal(s.fake.requests.length, 1, "one firing, one model call");
});

test("a thread cron whose previous run is still going skips the due time and counts the skip", async (t) => {
  const hold = gate();
  t.after(() => hold.open());
  const s = await startTestServer({
    cronMaxSleepMs: 60_000,
    script: async (body) => {
      if (lastUserText(body) === "slow") await hold.wait;
      return { content: "done" };
    },
  });
  t.after(() => s.close());
  const thread = await s.client.threads.create();
  const cron = await s.client.crons.createForThread(thread.thread_id, "lead_agent", {
    schedule: "* * * * *",
    input: say("slow"),
    multitaskStrategy: "enqueue",
  });
  await makeDue(s, cron.cron_id);
  await until(async () => (await cronOf(s.client, cron.cron_id)).last_run_id !== null, 10_000, "the first firing");
  await makeDue(s, cron.cron_id);
  await until(async () => (await cronOf(s.client, cron.cron_id)).skipped === 1, 10_000, "the skip");
  const shown = await cronOf(s.client, cron.cron_id);
  assert.ok(shown.last_skipped_at, "the skip's time is recorded");
  assert.ok(["pending", "running"].includes(shown.last_run_status as string));
  assert.equal((await runsOfCron(s, thread.thread_id, cron.cron_id)).length, 1, "no second run");
  hold.open();
  await s.client.runs.join(thread.thread_id, shown.last_run_id as string);
  assert.equal((await cronOf(s.client, cron.cron_id)).last_run_status, "success");
});

test("a firing whose process died after starting its run is finished by the next claim, without a second run", async (t) => {
  const s = await startTestServer({ cronMaxSleepMs: 60_000 });
  t.after(() => s.close());
  const thread = await s.client.threads.create();
  const cron = await s.client.crons.createForThread(thread.thread_id, "lead_agent", {
    schedule: "0 9 * * *",
    input: say("once"),
  });
  const store = s.server.context.crons;
  // The dead process: it claimed the due cron for a short lease and started the firing's run, then stopped.
  await store.update(cron.cron_id, null, { next_run_at: new Date().toISOString() });
  const [claim] = await store.claimDue(300, 1);
  assert.ok(claim, "the test's claim took the due cron");
  const due = new Date(claim.cron.next_run_at!);
  await startCronRun(s.server.context, claim.cron as CronRecord, firingIds(cron.cron_id, due), due);
  await s.server.context.announceCrons();

  await until(async () => (await cronOf(s.client, cron.cron_id)).last_run_id !== null, 10_000, "the takeover");
  const shown = await cronOf(s.client, cron.cron_id);
  assert.equal(shown.last_run_id, firingIds(cron.cron_id, due).runId);
  await s.client.runs.join(thread.thread_id, shown.last_run_id as string);
  assert.equal((await runsOfCron(s, thread.thread_id, cron.cron_id)).length, 1, "the due time fired once");
  assert.ok(new Date(shown.next_run_date as string) > new Date());
});

test("after_seconds: the run waits, pending, then runs", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const thread = await s.client.threads.create();
  const run = await s.client.runs.create(thread.thread_id, "lead_agent", { input: say("later"), afterSeconds: 1 });
  assert.equal((await s.client.runs.get(thread.thread_id, run.run_id)).status, "pending");
  assert.equal(s.fake.requests.length, 0);
  await s.client.runs.join(thread.thread_id, run.run_id);
  assert.equal((await s.client.runs.get(thread.thread_id, run.run_id)).status, "success");
});

test("a deleted thread takes its crons with it, and a removed user their crons", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const thread = await s.client.threads.create();
  await s.client.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "0 9 * * *" });
  const kept = await s.client.crons.create("lead_agent", { schedule: "0 9 * * *" });
  await s.client.threads.delete(thread.thread_id);
  assert.deepEqual(
    (await s.client.crons.search()).map((cron) => cron.cron_id),
    [kept.cron_id],
  );

  const context = s.server.context;
  const dana = await addUser(context.users, { name: "dana", password: null, admin: false });
  const caller = { userId: dana.id, name: "dana", admin: false, via: "token" } as const;
  await createCron(context, caller, null, { assistant_id: "lead_agent", schedule: "0 9 * * *" });
  assert.equal(await context.crons.count({ owner: dana.id }), 1);
  await removeUser(context, dana.id);
  assert.equal(await context.crons.count({ owner: dana.id }), 0);
  assert.equal(await context.crons.count({ owner: null }), 1, "the local user's cron stays");
});
