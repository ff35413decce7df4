import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolMessage } from "@langchain/core/messages";
import { type SlotOutcome, SubagentQueue, type SubagentQueueSettings } from "./queue.js";
import { createSubagentRegistry } from "./registry.js";
import type { TaskEvent } from "./events.js";
import type { SubagentGraph } from "./types.js";
import { createTaskTool } from "../tools/task.js";

const settings = (extra: Partial<SubagentQueueSettings> = {}): SubagentQueueSettings => ({
  maxRunning: 1,
  maxWaiting: 10,
  waitTimeoutSeconds: 600,
  rejectPolicy: "reject_new",
  ...extra,
});

function granted(outcome: SlotOutcome) {
  assert.ok(outcome.ok, "a slot was granted");
  return outcome;
}

test("waiting tasks get slots in FIFO order as running ones release them", async () => {
  const queue = new SubagentQueue(settings());
  const first = granted(await queue.acquire());
  const order: string[] = [];
  const positions: number[] = [];
  const waiting = ["a", "b", "c"].map((name) =>
    queue.acquire({ onQueued: (position) => positions.push(position) }).then((outcome) => {
      order.push(name);
      return granted(outcome);
    }),
  );
  assert.deepEqual(positions, [1, 2, 3]);
  assert.equal(queue.waiting, 3);
  first.release();
  (await waiting[0]!).release();
  (await waiting[1]!).release();
  (await waiting[2]!).release();
  assert.deepEqual(order, ["a", "b", "c"]);
  assert.equal(queue.running, 0);
  assert.equal(queue.waiting, 0);
});

test("a task that waits past wait_timeout_seconds times out and leaves the line", async () => {
  const queue = new SubagentQueue(settings({ waitTimeoutSeconds: 0.01 }));
  const holder = granted(await queue.acquire());
  const outcome = await queue.acquire();
  assert.equal(outcome.ok, false);
  assert.equal(!outcome.ok && outcome.reason, "timed_out");
  assert.match(!outcome.ok ? outcome.message : "", /timed out in the subagent queue.*0\.01 seconds/);
  assert.equal(queue.waiting, 0);
  holder.release();
  assert.equal(queue.running, 0, "the released slot is not handed to the timed-out task");
});

test("a full line rejects the newcomer (reject_new) or the longest waiter (drop_oldest)", async () => {
  const strict = new SubagentQueue(settings({ maxWaiting: 1 }));
  granted(await strict.acquire());
  const leave = new AbortController();
  const waiter = strict.acquire({ signal: leave.signal });
  const newcomer = await strict.acquire();
  assert.equal(!newcomer.ok && newcomer.reason, "rejected");
  assert.match(!newcomer.ok ? newcomer.message : "", /Task rejected by the subagent queue: 1 subagents are running/);
  assert.equal(strict.waiting, 1, "the earlier waiter keeps its place");

  const dropping = new SubagentQueue(settings({ maxWaiting: 1, rejectPolicy: "drop_oldest" }));
  const holder = granted(await dropping.acquire());
  const oldest = dropping.acquire();
  const newer = dropping.acquire();
  const dropped = await oldest;
  assert.equal(!dropped.ok && dropped.reason, "rejected");
  holder.release();
  granted(await newer);

  const none = new SubagentQueue(settings({ maxWaiting: 0, rejectPolicy: "drop_oldest" }));
  granted(await none.acquire());
  const refused = await none.acquire();
  assert.equal(!refused.ok && refused.reason, "rejected", "no line at all: every task past max_running is rejected");
  leave.abort();
  assert.equal(!(await waiter).ok, true);
});

test("an aborted parent takes its task out of the line", async () => {
  const queue = new SubagentQueue(settings());
  granted(await queue.acquire());
  const controller = new AbortController();
  const pending = queue.acquire({ signal: controller.signal });
  controller.abort();
  const outcome = await pending;
  assert.equal(!outcome.ok && outcome.reason, "cancelled");
  assert.equal(queue.waiting, 0);
});

test("the task tool answers a rejected or timed-out delegation clearly and never starts it", async () => {
  let built = 0;
  const createSubagent = (): SubagentGraph => {
    built += 1;
    return { stream: async () => (async function* () {})() };
  };
  const queue = new SubagentQueue(settings({ maxWaiting: 0 }));
  const holder = granted(await queue.acquire());
  const events: TaskEvent[] = [];
  const task = createTaskTool({
    registry: createSubagentRegistry({}),
    createSubagent,
    parentTools: [],
    queue,
    emit: (event) => events.push(event),
  });
  const call = { id: "call-q", name: "task", type: "tool_call" as const };
  const rejected = (await task.invoke({
    ...call,
    args: { description: "Job", prompt: "Do it", subagent_type: "general-purpose" },
  })) as ToolMessage;
  assert.ok(ToolMessage.isInstance(rejected));
  assert.equal(rejected.additional_kwargs.subagent_status, "failed");
  assert.equal(rejected.additional_kwargs.subagent_queue_outcome, "rejected");
  assert.match(rejected.text, /^Task failed\. Error: Task rejected by the subagent queue/);
  assert.deepEqual(
    events.map((event) => event.type),
    ["task_failed"],
  );

  const slow = new SubagentQueue(settings({ waitTimeoutSeconds: 0.01 }));
  granted(await slow.acquire());
  const timedTask = createTaskTool({
    registry: createSubagentRegistry({}),
    createSubagent,
    parentTools: [],
    queue: slow,
  });
  const timedOut = (await timedTask.invoke({
    ...call,
    args: { description: "Job", prompt: "Do it", subagent_type: "general-purpose" },
  })) as ToolMessage;
  assert.equal(timedOut.additional_kwargs.subagent_status, "timed_out");
  assert.equal(timedOut.additional_kwargs.subagent_queue_outcome, "timed_out");
  assert.match(timedOut.text, /^Task timed out\. Error: Task timed out in the subagent queue/);
  assert.equal(built, 0, "no subagent was built");
  holder.release();
});
