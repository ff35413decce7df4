/**
 * A worker that lost its run's lease while it was stalled (a late heartbeat under load) must stop and
 * write nothing, so the process that took the run over is the only one executing it. Two servers in
 * this process on one real Postgres; the stall is a gate (in the thread lease or in the model call), the
 * lapse is the lease expiry written by hand, so nothing here depends on timing. Skips with the reason
 * when no Postgres is reachable.
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { openPostgresThreadLeases } from "@deerflow/harness";
import { testDatabase } from "@deerflow/harness/testing";
import pg from "pg";
import { gate, lastUserText, startTestServer, type TestServer, until } from "./helpers.js";

type Messages = { messages: { type: string; content: unknown }[] };
type Script = Parameters<typeof startTestServer>[0] extends infer O
  ? O extends { script?: infer S }
    ? NonNullable<S>
    : never
  : never;

/**
 * A fresh database, server A (one run at a time, so it cannot claim a re-queued run back itself) and a
 * way to start B later. Each server takes the real Postgres thread lease after its gate in `stalls`.
 */
async function fixture(t: TestContext, script: Script) {
  const db = await testDatabase();
  if ("skip" in db) {
    t.skip(db.skip);
    return null;
  }
  // Teardown in reverse order of setup: the database goes last.
  const cleanup: (() => unknown)[] = [() => db.drop()];
  t.after(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  // Leases long enough that no heartbeat or sweeper fires during the test: the lapse is made by hand.
  const previousLease = process.env.DEER_FLOW_RUN_LEASE_MS;
  process.env.DEER_FLOW_RUN_LEASE_MS = "600000";
  cleanup.push(() =>
    previousLease === undefined
      ? delete process.env.DEER_FLOW_RUN_LEASE_MS
      : (process.env.DEER_FLOW_RUN_LEASE_MS = previousLease),
  );
  const sql = new pg.Pool({ connectionString: db.url, max: 4 });
  // The forced drop at teardown ends connections still idle here; that is not the test's failure.
  sql.on("error", () => {});
  cleanup.push(() => sql.end());

  const stalls = { A: gate(), B: gate() };
  const calls: string[] = [];
  const released: string[] = [];
  const leaseFor = (name: "A" | "B") => {
    let leases: ReturnType<typeof openPostgresThreadLeases> | undefined;
    return async (threadId: string, signal: AbortSignal) => {
      calls.push(name);
      await stalls[name].wait;
      leases ??= openPostgresThreadLeases(sql);
      const lease = await leases.acquire(threadId, { waitMs: 60_000, signal });
      return () => {
        released.push(name);
        void lease.release();
      };
    };
  };
  const yaml = `database: {backend: postgres, url: '${db.url}'}`;
  const a = await startTestServer({ yaml, maxConcurrentRuns: 1, script, threadLease: leaseFor("A") });
  cleanup.push(() => a.close());
  return {
    a,
    stalls,
    calls,
    released,
    /** A's heartbeat was late: the run's lease lapses; B starts, its start-up sweep re-queues the run, B claims it. */
    async takeOver(runId: string): Promise<TestServer> {
      await sql.query("UPDATE server_runs SET lease_expires = now() - interval '1 second' WHERE run_id = $1", [runId]);
      const b = await startTestServer({ yaml, script, threadLease: leaseFor("B") });
      cleanup.push(() => b.close());
      await until(() => calls.includes("B"), 15_000, "B to claim the run").catch(async (error) => {
        const rows = await sql.query("SELECT run_id, status, worker_id, lease_expires, kwargs FROM server_runs");
        throw new Error(
          `${error.message}\nruns: ${JSON.stringify(rows.rows)}\nA: ${a.logs.join("\n")}\nB: ${b.logs.join("\n")}\ncalls: ${calls}`,
        );
      });
      return b;
    },
  };
}

const hi = { input: { messages: [{ role: "user", content: "hi" }] } };

test("a run taken over while its first worker stalled before starting is executed once (the input is not sent twice)", async (t) => {
  const f = await fixture(t, async (body) => ({ content: `echo ${lastUserText(body)}` }));
  if (!f) return;
  const thread = await f.a.client.threads.create();
  const run = await f.a.client.runs.create(thread.thread_id, "lead_agent", hi);
  await until(() => f.calls.includes("A"), 15_000, "A to claim the run and stall");
  const b = await f.takeOver(run.run_id);

  // A wakes up first and must notice it no longer owns the run; B runs it only after A let go.
  f.stalls.A.open();
  await until(() => f.released.includes("A"), 15_000, "A to let go of the thread");
  f.stalls.B.open();
  await until(() => f.released.includes("B"), 15_000, "B to finish the run");

  assert.equal(await settledStatus(b.client, thread.thread_id, run.run_id), "success");
  const values = (await b.client.threads.getState(thread.thread_id)).values as Messages;
  assert.deepEqual(
    values.messages.map((message) => message.content),
    ["hi", "echo hi"],
    "the input and answer once: only the new owner executed the run",
  );
  assert.equal(
    f.a.fake.requests.length + b.fake.requests.length,
    1,
    "one model call: the stalled worker never reached the model",
  );
  assert.ok(
    f.a.logs.some((line) => /another process took it over/.test(line)),
    f.a.logs.join("\n"),
  );
});

test("a run taken over while its first worker was inside a model call: that worker's answer is never checkpointed", async (t) => {
  const slow = gate();
  t.after(() => slow.open());
  let calls = 0;
  const f = await fixture(t, async () => {
    const call = ++calls;
    if (call === 1) await slow.wait;
    return { content: `answer ${call}` };
  });
  if (!f) return;
  f.stalls.A.open();
  f.stalls.B.open();
  const thread = await f.a.client.threads.create();
  const run = await f.a.client.runs.create(thread.thread_id, "lead_agent", hi);
  await until(() => calls === 1, 15_000, "A's model call");
  // LangGraph saves a step's checkpoint in the background while the next node (the model call) runs;
  // each save checks the fence. A takeover before A's last save would let A notice the loss there, stop,
  // and claim the re-queued run back before B does. Wait until the checkpoint before the model is saved.
  await until(
    async () => (await f.a.client.threads.getState(thread.thread_id)).next.includes("model_request"),
    15_000,
    "A's checkpoint before the model call",
  );
  // B claims the run and waits for the thread, which A holds until it stops.
  const b = await f.takeOver(run.run_id);
  slow.open();
  await until(() => f.released.includes("B"), 15_000, "B to finish the run");

  assert.equal(await settledStatus(b.client, thread.thread_id, run.run_id), "success");
  const values = (await b.client.threads.getState(thread.thread_id)).values as Messages;
  assert.deepEqual(
    values.messages.map((message) => message.content),
    ["hi", "answer 2"],
    "B resumed after the checkpointed input; A's late answer was fenced off",
  );
  assert.ok(
    f.a.logs.some((line) => /another process took it over/.test(line)),
    f.a.logs.join("\n"),
  );
});

/** The run's status once settled: a worker releases the thread before it settles the run, so poll for it. */
async function settledStatus(
  client: { runs: { get(thread: string, run: string): Promise<{ status: string }> } },
  threadId: string,
  runId: string,
) {
  let status = "";
  await until(
    async () => {
      status = (await client.runs.get(threadId, runId)).status;
      return status !== "running" && status !== "pending";
    },
    15_000,
    "the run to be settled",
  );
  return status;
}
