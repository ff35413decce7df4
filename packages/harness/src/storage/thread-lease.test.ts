import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { createTempHome } from "../testing/temp-home.js";
import { openThreadLeases, ThreadBusyError } from "./thread-lease.js";

function deadPid(): number {
  // A process that has exited: its pid is free (reuse within the test is practically impossible).
  return Number(
    spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout,
  );
}

test("a second holder of the same thread is refused with who holds it, and can take it after release", async () => {
  const dir = createTempHome();
  const file = path.join(dir.path, "checkpoints.sqlite");
  const mine = openThreadLeases(file);
  const other = openThreadLeases(file, { pid: process.ppid });
  try {
    const lease = await mine.acquire("t1");
    await assert.rejects(other.acquire("t1"), (error: unknown) => {
      assert.ok(error instanceof ThreadBusyError);
      assert.equal(error.code, "thread_busy");
      assert.match(error.message, new RegExp(`Thread t1 is busy \\(pid ${process.pid}, since \\d{4}-\\d\\d-\\d\\d `));
      return true;
    });
    assert.equal((await mine.holder("t1"))?.pid, process.pid);
    const another = await other.acquire("t2");
    another.release();
    lease.release();
    assert.equal(await other.holder("t1"), null);
    (await other.acquire("t1")).release();
  } finally {
    mine.close();
    other.close();
    dir.cleanup();
  }
});

test("a waiting acquire gets the lease once the holder releases it", async () => {
  const dir = createTempHome();
  const file = path.join(dir.path, "checkpoints.sqlite");
  const first = openThreadLeases(file, { pollMs: 20 });
  const second = openThreadLeases(file, { pollMs: 20, pid: process.ppid });
  try {
    const lease = await first.acquire("t");
    setTimeout(() => lease.release(), 100);
    const waited = await second.acquire("t", { waitMs: 10_000 });
    assert.equal((await second.holder("t"))?.pid, process.ppid);
    waited.release();
  } finally {
    first.close();
    second.close();
    dir.cleanup();
  }
});

test("the lease of a dead process on this host is taken over at once; a live one is kept alive by its heartbeat", async () => {
  const dir = createTempHome();
  const file = path.join(dir.path, "checkpoints.sqlite");
  const crashed = openThreadLeases(file, { pid: deadPid() });
  const live = openThreadLeases(file, { ttlMs: 150, heartbeatMs: 30, pid: process.ppid });
  const me = openThreadLeases(file, { pollMs: 20 });
  try {
    await crashed.acquire("dead");
    crashed.close = () => {}; // the "crashed" process never releases
    const taken = await me.acquire("dead");
    taken.release();

    const held = await live.acquire("alive");
    await new Promise((resolve) => setTimeout(resolve, 400)); // longer than the TTL: only the heartbeat keeps it
    await assert.rejects(me.acquire("alive"), ThreadBusyError);
    held.release();
  } finally {
    live.close();
    me.close();
    dir.cleanup();
  }
});

test("a lease whose holder stopped renewing expires", async () => {
  const dir = createTempHome();
  const file = path.join(dir.path, "checkpoints.sqlite");
  // Another host: liveness cannot be checked, only expiry frees it.
  const remote = openThreadLeases(file, { ttlMs: 100, heartbeatMs: 1_000_000, host: "elsewhere", pid: 1 });
  const me = openThreadLeases(file, { pollMs: 20 });
  try {
    await remote.acquire("t");
    await assert.rejects(me.acquire("t"), /busy \(pid 1 on elsewhere/);
    const lease = await me.acquire("t", { waitMs: 5_000 });
    lease.release();
  } finally {
    me.close();
    dir.cleanup();
  }
});
