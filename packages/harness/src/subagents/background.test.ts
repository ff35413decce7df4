import { test } from "node:test";
import assert from "node:assert/strict";
import { BackgroundTasks, type BackgroundStart, backgroundThreadKey } from "./background.js";
import type { SubagentResult } from "./types.js";

/** A background run the test finishes by hand; it ends `cancelled` when its signal fires. */
function controllable() {
  let finish!: (result: SubagentResult) => void;
  let step!: () => void;
  let signal!: AbortSignal;
  const run: BackgroundStart["run"] = (taskSignal, onStep) => {
    signal = taskSignal;
    step = onStep;
    return new Promise<SubagentResult>((resolve) => {
      finish = resolve;
      taskSignal.addEventListener("abort", () => resolve({ status: "cancelled" }), { once: true });
    });
  };
  return { run, finish: (result: SubagentResult) => finish(result), step: () => step(), signal: () => signal };
}

const start = (id: string, run: BackgroundStart["run"], extra: Partial<BackgroundStart> = {}): BackgroundStart => ({
  taskId: id,
  description: `Job ${id}`,
  subagentType: "general-purpose",
  maxRunning: 3,
  run,
  ...extra,
});

test("a finished task is kept, with its result, until it is collected; then it is gone", async () => {
  const tasks = new BackgroundTasks({ now: () => 0 });
  const job = controllable();
  assert.deepEqual(tasks.start("t", start("a", job.run, { modelName: "small" })), { ok: true });
  job.step();
  job.step();
  assert.deepEqual(tasks.list("t"), [
    {
      task_id: "a",
      description: "Job a",
      subagent_type: "general-purpose",
      steps: 2,
      status: "running",
      elapsed_seconds: 0,
    },
  ]);
  const early = await tasks.collect("t", "a", { waitMs: 0 });
  assert.equal(early?.result, undefined, "a zero wait returns the running task without a result");
  assert.equal(tasks.list("t").length, 1, "and keeps it");

  job.finish({ status: "completed", result: "found it" });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(tasks.list("t")[0]?.status, "completed", "finished but not collected: still listed");
  const collected = await tasks.collect("t", "a");
  assert.deepEqual(collected?.result, { status: "completed", result: "found it" });
  assert.equal((collected as { modelName?: string }).modelName, "small");
  assert.deepEqual(tasks.list("t"), []);
  assert.equal(await tasks.collect("t", "a"), undefined, "collected once only");
});

test("collect without a wait limit waits for the task to end", async () => {
  const tasks = new BackgroundTasks();
  const job = controllable();
  tasks.start("t", start("a", job.run));
  const collecting = tasks.collect("t", "a");
  job.finish({ status: "failed", error: "boom" });
  assert.deepEqual((await collecting)?.result, { status: "failed", error: "boom" });
});

test("collect stops waiting when the caller's signal aborts, and keeps the task", async () => {
  const tasks = new BackgroundTasks();
  const job = controllable();
  tasks.start("t", start("a", job.run));
  const caller = new AbortController();
  const collecting = tasks.collect("t", "a", { signal: caller.signal });
  caller.abort();
  assert.equal((await collecting)?.result, undefined);
  assert.equal(tasks.list("t").length, 1);
});

test("threads are separate, and more than maxRunning running tasks are refused with what to do", () => {
  const tasks = new BackgroundTasks();
  tasks.start("t", start("a", controllable().run, { maxRunning: 2 }));
  tasks.start("t", start("b", controllable().run, { maxRunning: 2 }));
  const refused = tasks.start("t", start("c", controllable().run, { maxRunning: 2 }));
  assert.equal(refused.ok, false);
  assert.match((refused as { error: string }).error, /2 background tasks are already running.*Collect or cancel one/);
  assert.deepEqual(tasks.start("other", start("c", controllable().run, { maxRunning: 2 })), { ok: true });
  assert.deepEqual(tasks.ids("t"), ["a", "b"]);
  assert.deepEqual(tasks.ids("other"), ["c"]);
});

test("cancel aborts the task's signal and returns its cancelled result", async () => {
  const tasks = new BackgroundTasks();
  const job = controllable();
  tasks.start("t", start("a", job.run));
  const cancelled = await tasks.cancel("t", "a");
  assert.ok(job.signal().aborted);
  assert.equal(cancelled?.result.status, "cancelled");
  assert.deepEqual(tasks.list("t"), []);
});

test("endRun cancels what still runs, drops uncollected results, and leaves nothing behind", async () => {
  const tasks = new BackgroundTasks();
  const running = controllable();
  const finished = controllable();
  tasks.start("t", start("a", running.run));
  tasks.start("t", start("b", finished.run));
  finished.finish({ status: "completed", result: "done" });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(await tasks.endRun("t"), { cancelled: 1, uncollected: 1 });
  assert.ok(running.signal().aborted);
  assert.deepEqual(tasks.list("t"), []);
  assert.deepEqual(await tasks.endRun("t"), { cancelled: 0, uncollected: 0 });
});

test("a task whose parent run is aborted is cancelled and dropped once it settles", async () => {
  const tasks = new BackgroundTasks();
  const parent = new AbortController();
  const job = controllable();
  tasks.start("t", start("a", job.run, { signal: parent.signal }));
  parent.abort();
  assert.ok(job.signal().aborted, "the parent's abort reaches the subagent");
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(tasks.list("t"), []);
});

test("a run that throws ends failed instead of rejecting", async () => {
  const tasks = new BackgroundTasks();
  tasks.start(
    "t",
    start("a", () => Promise.reject(new Error("factory broke"))),
  );
  const collected = await tasks.collect("t", "a");
  assert.deepEqual(collected?.result, { status: "failed", error: "factory broke" });
});

test("backgroundThreadKey files thread-less runs under one key", () => {
  assert.equal(backgroundThreadKey("thread-1"), "thread-1");
  assert.equal(backgroundThreadKey(undefined), backgroundThreadKey(""));
});
