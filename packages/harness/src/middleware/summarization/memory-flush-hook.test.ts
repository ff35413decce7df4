import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { MemoryTurn } from "../../memory/conversation-filter.js";
import { memoryFlushHook } from "./memory-flush-hook.js";

/** Three turns: q0 a0 q1 a1 q2 a2, then the current question q3. */
const thread: BaseMessage[] = [0, 1, 2].flatMap((i) => [
  new HumanMessage({ id: `q${i}`, content: `question ${i}` }),
  new AIMessage({ id: `a${i}`, content: `answer ${i}` }),
]);
thread.push(new HumanMessage({ id: "q3", content: "question 3" }));
const event = (removed: number) => ({
  messages: thread.slice(0, removed),
  preserved: thread.slice(removed),
  thread,
  threadId: "t1",
  manual: false,
});

function flushed(learnedThrough?: string) {
  const queued: { turns: MemoryTurn[]; standalone?: boolean }[] = [];
  const hook = memoryFlushHook(
    { enqueue: (_threadId, turns, options) => void queued.push({ turns, standalone: options?.standalone }) },
    { learnedThrough: () => learnedThrough },
  );
  return { hook, queued };
}

test("the flush sends only the compacted messages memory has not learned from", async () => {
  const partly = flushed("a0");
  await partly.hook(event(4));
  assert.deepEqual(partly.queued, [
    {
      turns: [
        { role: "user", content: "question 1" },
        { role: "assistant", content: "answer 1" },
      ],
      standalone: true,
    },
  ]);

  const all = flushed("a2");
  await all.hook(event(4));
  assert.deepEqual(all.queued, [], "memory learned from every compacted message: nothing is queued");
});

test("the flush sends every compacted message when memory's position is unknown or already compacted away", async () => {
  for (const learned of [undefined, "gone-earlier"]) {
    const { hook, queued } = flushed(learned);
    await hook(event(4));
    assert.deepEqual(
      queued.map((job) => job.turns.map((turn) => turn.content)),
      [["question 0", "answer 0", "question 1", "answer 1"]],
      `learned through ${learned}`,
    );
  }
});
