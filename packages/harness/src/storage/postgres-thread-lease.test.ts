import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { testDatabase } from "../testing/postgres.js";
import { openPostgresDatabase } from "./postgres-database.js";
import { openPostgresThreadLeases } from "./postgres-thread-lease.js";
import { runLeaseMs, ThreadBusyError } from "./thread-lease.js";

// Two "processes" (two pools, two pids, two hosts) on one fresh database: what a CLI run on machine A
// and a server run on machine B see.
async function twoProcesses(t: import("node:test").TestContext) {
  const db = await testDatabase();
  if ("skip" in db) {
    t.skip(db.skip);
    return null;
  }
  const a = await openPostgresDatabase(db.url);
  const b = await openPostgresDatabase(db.url);
  t.after(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });
  return { a, b };
}

test("postgres leases: a second holder on another host is refused with who holds it; it can take it after release", async (t) => {
  const dbs = await twoProcesses(t);
  if (!dbs) return;
  const first = openPostgresThreadLeases(dbs.a.pool, { pid: 1111, host: "machine-a", pollMs: 20 });
  const second = openPostgresThreadLeases(dbs.b.pool, { pid: 2222, host: "machine-b", pollMs: 20 });
  try {
    const lease = await first.acquire("t1");
    await assert.rejects(second.acquire("t1"), (error: unknown) => {
      assert.ok(error instanceof ThreadBusyError);
      assert.match(error.message, /Thread t1 is busy \(pid 1111 on machine-a, since \d{4}-/);
      return true;
    });
    assert.equal((await second.holder("t1"))?.host, "machine-a");
    (await second.acquire("t2")).release();
    await lease.release();
    assert.equal(await second.holder("t1"), null);
    const mine = await second.acquire("t1");
    assert.equal((await first.holder("t1"))?.pid, 2222);
    await mine.release();
  } finally {
    await first.close();
    await second.close();
  }
});

test("postgres leases: a waiting acquire gets the lease once the holder releases it", async (t) => {
  const dbs = await twoProcesses(t);
  if (!dbs) return;
  const first = openPostgresThreadLeases(dbs.a.pool, { pid: 1111, host: "machine-a", pollMs: 20 });
  const second = openPostgresThreadLeases(dbs.b.pool, { pid: 2222, host: "machine-b", pollMs: 20 });
  try {
    const lease = await first.acquire("t");
    setTimeout(() => lease.release(), 150);
    const waited = await second.acquire("t", { waitMs: 10_000 });
    assert.equal((await first.holder("t"))?.host, "machine-b");
    await waited.release();
  } finally {
    await first.close();
    await second.close();
  }
});

test("postgres leases: the heartbeat keeps a live holder's lease; one that stops renewing is taken over after expiry", async (t) => {
  const dbs = await twoProcesses(t);
  if (!dbs) return;
  const live = openPostgresThreadLeases(dbs.a.pool, { pid: 1111, host: "machine-a", ttlMs: 300, heartbeatMs: 50 });
  const frozen = openPostgresThreadLeases(dbs.a.pool, {
    pid: 3333,
    host: "machine-c",
    ttlMs: 300,
    heartbeatMs: 1_000_000,
  });
  const other = openPostgresThreadLeases(dbs.b.pool, { pid: 2222, host: "machine-b", pollMs: 20 });
  try {
    const kept = await live.acquire("busy");
    await new Promise((resolve) => setTimeout(resolve, 700));
    // Well past its ttl, but renewed: still held.
    await assert.rejects(other.acquire("busy"), ThreadBusyError);
    await kept.release();

    await frozen.acquire("stale");
    await assert.rejects(other.acquire("stale"), ThreadBusyError);
    // The holder (machine-c) never renews, and its pid cannot be checked from here: expiry frees it.
    const taken = await other.acquire("stale", { waitMs: 10_000 });
    assert.equal((await live.holder("stale"))?.host, "machine-b");
    await taken.release();
  } finally {
    await live.close();
    await frozen.close();
    await other.close();
  }
});

// import.meta.resolve: the module as this file runs, compiled under npm test (the child runs it with plain
// node), or its source under tsx.
const LEASES = import.meta.resolve("./postgres-thread-lease.js");

test("postgres leases: the lease follows DEER_FLOW_RUN_LEASE_MS, so a holder killed with -9 on another host frees the thread as soon as a run lease would", async (t) => {
  const dbs = await twoProcesses(t);
  if (!dbs) return;
  assert.equal(runLeaseMs({}), 30_000);
  assert.equal(runLeaseMs({ DEER_FLOW_RUN_LEASE_MS: "1500" }), 1500);
  assert.equal(runLeaseMs({ DEER_FLOW_RUN_LEASE_MS: "soon" }), 30_000);
  // A real process "on machine-k" takes the lease with the service's lease time, then dies without releasing it.
  const holderCode = `
    import pg from "pg";
    import { openPostgresThreadLeases } from ${JSON.stringify(LEASES)};
    const pool = new pg.Pool({ connectionString: process.argv[1] });
    await openPostgresThreadLeases(pool, { host: "machine-k" }).acquire("killed");
    console.log("held");
    setInterval(() => {}, 1000);
  `;
  const loader = LEASES.endsWith(".ts") ? ["--import", "tsx"] : [];
  const child = spawn(process.execPath, [...loader, "--input-type=module", "-e", holderCode, dbs.a.url], {
    env: { ...process.env, DEER_FLOW_RUN_LEASE_MS: "1500" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  t.after(() => child.kill("SIGKILL"));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("held") && resolve());
    child.once("exit", (code) => reject(new Error(`the lease holder exited early (${code})`)));
  });
  const other = openPostgresThreadLeases(dbs.b.pool, { pid: 2222, host: "machine-b", pollMs: 20 });
  try {
    const holder = await other.holder("killed");
    assert.ok(holder);
    assert.equal(holder.host, "machine-k");
    // (since and expires are two reads of the database clock, a millisecond or so apart)
    assert.ok(
      Math.abs(holder.expires - holder.since - 1500) < 100,
      `the holder's lease lives DEER_FLOW_RUN_LEASE_MS, not ${holder.expires - holder.since} ms`,
    );
    child.kill("SIGKILL");
    // Its pid is on "another host", so only expiry frees it: well inside this wait, though a fixed 30 s lease would not be.
    const taken = await other.acquire("killed", { waitMs: 20_000 });
    assert.equal((await other.holder("killed"))?.host, "machine-b");
    await taken.release();
  } finally {
    await other.close();
  }
});
