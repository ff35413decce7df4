import { mock, test } from "node:test";
import assert from "node:assert/strict";
import type { MemoryTurn } from "./conversation-filter.js";
import { type MemoryJob, createMemoryQueue } from "./memory-queue.js";

const says = (text: string): MemoryTurn[] => [
  { role: "user", content: text },
  { role: "assistant", content: "ok" },
];
const settle = () => new Promise((resolve) => setImmediate(resolve));

test("a thread's job runs only after debounceMs of quiet, with its newest conversation", async (t) => {
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  const processed: MemoryJob[] = [];
  const queue = createMemoryQueue({ debounceMs: 1000, process: async (job) => void processed.push(job) });

  queue.enqueue("t1", says("first turn"));
  mock.timers.tick(600);
  queue.enqueue("t1", says("first turn + second turn"));
  mock.timers.tick(600);
  await settle();
  assert.equal(processed.length, 0, "the second enqueue restarted the wait");
  assert.equal(queue.pending(), 1, "one job per thread: the newer conversation replaced the older");

  mock.timers.tick(400);
  await settle();
  assert.deepEqual(
    processed.map((job) => job.conversation[0]?.content),
    ["first turn + second turn"],
  );
  assert.equal(queue.pending(), 0);
});

test("threads are debounced separately", async (t) => {
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  const processed: string[] = [];
  const queue = createMemoryQueue({ debounceMs: 1000, process: async (job) => void processed.push(job.threadId) });
  queue.enqueue("a", says("a"));
  mock.timers.tick(500);
  queue.enqueue("b", says("b"));
  mock.timers.tick(500);
  await settle();
  assert.deepEqual(processed, ["a"]);
  mock.timers.tick(500);
  await settle();
  assert.deepEqual(processed, ["a", "b"]);
});

test("flush processes everything waiting now, one job at a time, and resolves when all are done", async () => {
  let running = 0;
  let maxRunning = 0;
  const processed: string[] = [];
  const queue = createMemoryQueue({
    debounceMs: 60_000,
    process: async (job) => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      await settle();
      processed.push(`${job.threadId}:${job.conversation[0]?.content}`);
      running -= 1;
    },
  });
  queue.enqueue("t1", says("old"));
  queue.enqueue("t2", says("x"));
  queue.enqueue("t1", says("new"));
  queue.enqueue("t3", says("y"));
  assert.equal(queue.pending(), 3);

  await queue.flush();

  assert.deepEqual(processed.sort(), ["t1:new", "t2:x", "t3:y"]);
  assert.equal(maxRunning, 1);
  assert.equal(queue.pending(), 0);
});

test("a failing job is reported and does not stop the others", async () => {
  const warnings: string[] = [];
  const processed: string[] = [];
  const queue = createMemoryQueue({
    debounceMs: 60_000,
    process: async (job) => {
      if (job.threadId === "bad") throw new Error("disk full");
      processed.push(job.threadId);
    },
    onWarning: (message) => warnings.push(message),
  });
  queue.enqueue("bad", says("x"));
  queue.enqueue("good", says("y"));
  await queue.flush();
  assert.deepEqual(processed, ["good"]);
  assert.deepEqual(warnings, ["Memory update for thread bad failed: disk full"]);
});

test("the same thread id under two agent names is two jobs, each tagged with its agent", async () => {
  const processed: MemoryJob[] = [];
  const queue = createMemoryQueue({ debounceMs: 60_000, process: async (job) => void processed.push(job) });
  queue.enqueue("t1", says("x"), { agentName: "writer" });
  queue.enqueue("t1", says("y"));
  await queue.flush();
  assert.deepEqual(
    processed.map((job) => [job.agentName, job.conversation[0]?.content]),
    [
      ["writer", "x"],
      [undefined, "y"],
    ],
  );
});

test("close flushes, then refuses new conversations with a warning", async () => {
  const warnings: string[] = [];
  const processed: string[] = [];
  const queue = createMemoryQueue({
    debounceMs: 60_000,
    process: async (job) => void processed.push(job.threadId),
    onWarning: (message) => warnings.push(message),
  });
  queue.enqueue("t1", says("x"));
  await queue.close();
  queue.enqueue("t2", says("y"));
  await queue.flush();
  assert.deepEqual(processed, ["t1"]);
  assert.match(warnings[0] ?? "", /closed; the conversation of thread t2 will not be remembered/);
});

test("stop abandons the work at once: waiting jobs never run, the running one is aborted and not counted as failed", async () => {
  const processed: string[] = [];
  const journal = { record: mock.fn(), settle: mock.fn(), failed: mock.fn(), release: mock.fn() };
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => (started = resolve));
  const queue = createMemoryQueue({
    debounceMs: 60_000,
    journal,
    process: async (job, signal) => {
      if (job.threadId === "slow") {
        started();
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
        return "retry"; // what the updater says when its call was cut short
      }
      processed.push(job.threadId);
    },
  });
  queue.enqueue("slow", says("x"));
  const flushed = queue.flush();
  await running;
  queue.enqueue("waiting", says("y"));
  queue.stop();
  await flushed;
  await settle();
  assert.deepEqual(processed, []);
  assert.equal(journal.record.mock.callCount(), 2, "both were journaled when queued");
  assert.equal(journal.failed.mock.callCount(), 0, "an abandoned call is not a failed attempt");
  assert.equal(journal.settle.mock.callCount(), 0, "nothing was learned: both stay in the journal");
  assert.equal(journal.release.mock.callCount(), 1, "handed to the next process");
  queue.enqueue("late", says("z"));
  assert.equal(queue.pending(), 0);
});

test("a newer conversation replacing a waiting one keeps the older one's signals", async () => {
  const processed: MemoryJob[] = [];
  const queue = createMemoryQueue({ debounceMs: 60_000, process: async (job) => void processed.push(job) });
  queue.enqueue("t1", says("That's wrong."), { signals: ["correction"] });
  queue.enqueue("t1", says("That's wrong. ... Perfect!"), { signals: ["reinforcement"] });
  queue.enqueue("t2", says("hello"), { signals: [] });
  await queue.flush();
  assert.deepEqual(
    processed.map((job) => [job.threadId, job.signals]),
    [
      ["t1", ["correction", "reinforcement"]],
      ["t2", undefined],
    ],
  );
});

test("a standalone conversation (compacted turns) starts at once and is neither replaced nor replacing", async (t) => {
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  const processed: string[] = [];
  let release: () => void = () => {};
  const busy = new Promise<void>((resolve) => {
    release = resolve;
  });
  const queue = createMemoryQueue({
    debounceMs: 1000,
    process: async (job) => {
      processed.push(job.conversation[0]!.content);
      if (processed.length === 1) await busy; // another update is still running when the flush comes
    },
  });
  queue.enqueue("other", says("another thread"));
  mock.timers.tick(1000);
  await settle();
  queue.enqueue("t1", says("early turns"), { standalone: true });
  queue.enqueue("t1", says("the end-of-run conversation"));
  assert.equal(queue.pending(), 3, "the compacted turns wait behind the running update, beside the thread's job");
  release();
  await settle();
  await settle();
  assert.deepEqual(processed, ["another thread", "early turns"], "the standalone job ran without a debounce");
  mock.timers.tick(1000);
  await settle();
  assert.deepEqual(processed, ["another thread", "early turns", "the end-of-run conversation"]);
});

test("learnedThrough names a thread's last message once a job covering it is done, never while it waits", async () => {
  let fail = false;
  const queue = createMemoryQueue({ debounceMs: 60_000, process: async () => (fail ? "retry" : undefined) });
  queue.enqueue("t1", says("first"), { throughMessageId: "m2" });
  assert.equal(queue.learnedThrough("t1"), undefined, "waiting: a newer conversation may still replace it");
  await queue.flush();
  assert.equal(queue.learnedThrough("t1"), "m2");

  queue.enqueue("t1", says("second"), { throughMessageId: "m4", agentName: "researcher" });
  queue.enqueue("t1", says("aside"), { throughMessageId: "m9", standalone: true });
  await queue.flush();
  assert.equal(queue.learnedThrough("t1"), "m2", "another agent's job and a standalone one leave it alone");
  assert.equal(queue.learnedThrough("t1", { agentName: "researcher" }), "m4");

  fail = true;
  queue.enqueue("t1", says("third"), { throughMessageId: "m6" });
  await queue.flush();
  assert.equal(queue.learnedThrough("t1"), "m2", "a failed update learned nothing");
  queue.stop();
});
