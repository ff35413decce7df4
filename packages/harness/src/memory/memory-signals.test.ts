import assert from "node:assert/strict";
import { test } from "node:test";
import type { MemoryTurn } from "./conversation-filter.js";
import { detectMemorySignals, mergeMemorySignals } from "./memory-signals.js";

const user = (content: string): MemoryTurn => ({ role: "user", content });
const assistant = (content: string): MemoryTurn => ({ role: "assistant", content });

test("a user telling the agent it was wrong is a correction, in English or Chinese", () => {
  for (const text of [
    "That's wrong, I use uv, not pip.",
    "that is incorrect",
    "You misunderstood the question",
    "No, I meant the staging cluster",
    "please redo it with tabs",
    "不对，应该用 uv",
  ]) {
    assert.deepEqual(detectMemorySignals([user(text), assistant("ok")]), ["correction"], text);
  }
});

test("a user confirming the agent's approach is a reinforcement", () => {
  for (const text of ["Yes, exactly right!", "That's exactly what I wanted", "Perfect.", "完全正确"]) {
    assert.deepEqual(detectMemorySignals([user(text)]), ["reinforcement"], text);
  }
});

test("ordinary requests, the assistant's own words and old turns give no signal", () => {
  assert.deepEqual(detectMemorySignals([user("Write a function that parses dates"), assistant("Done.")]), []);
  assert.deepEqual(detectMemorySignals([user("There is no use in hurrying"), assistant("True.")]), []);
  assert.deepEqual(detectMemorySignals([user("Hi"), assistant("That's wrong of me, sorry. Perfect.")]), []);
  const old = [user("That's wrong."), ...Array.from({ length: 6 }, (_, i) => (i % 2 ? assistant("a") : user("b")))];
  assert.deepEqual(detectMemorySignals(old), []);
});

test("a message can carry both signals; merging keeps each once, corrections first", () => {
  assert.deepEqual(detectMemorySignals([user("That's wrong."), assistant("Fixed."), user("Perfect!")]), [
    "correction",
    "reinforcement",
  ]);
  assert.deepEqual(mergeMemorySignals(["reinforcement"], ["correction", "reinforcement"]), [
    "correction",
    "reinforcement",
  ]);
  assert.deepEqual(mergeMemorySignals(undefined, undefined), []);
});
