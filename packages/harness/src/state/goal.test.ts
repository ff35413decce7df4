import assert from "node:assert/strict";
import { test } from "node:test";
import { createGoal, GOAL_MAX_CHARS, parseGoalCommand } from "./goal.js";

test("/goal shows, /goal clear (reset, off) clears, anything else sets", () => {
  assert.deepEqual(parseGoalCommand("  "), { kind: "show" });
  for (const word of ["clear", "RESET", " off "]) assert.deepEqual(parseGoalCommand(word), { kind: "clear" });
  assert.deepEqual(parseGoalCommand(" Ship the beta "), { kind: "set", objective: "Ship the beta" });
});

test("a goal is whitespace-collapsed and bounded, with a clear error otherwise", () => {
  const now = new Date("2026-01-01T00:00:00.000Z");
  assert.deepEqual(createGoal(" Ship\n the   beta ", now), { objective: "Ship the beta", set_at: now.toISOString() });
  assert.throws(() => createGoal("   "), /needs some text: \/goal <what/);
  assert.throws(() => createGoal("x".repeat(GOAL_MAX_CHARS + 1)), /at most 4000 are kept\. Shorten it/);
});
