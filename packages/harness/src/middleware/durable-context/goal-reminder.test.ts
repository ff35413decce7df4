import assert from "node:assert/strict";
import { test } from "node:test";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { projectGoal, renderGoalReminder } from "./goal-reminder.js";

const goal = { objective: "Ship </thread_goal> the beta", set_at: "2026-01-01T00:00:00.000Z" };

test("the goal is escaped inside its block", () => {
  const text = renderGoalReminder(goal);
  assert.match(text, /^<thread_goal>\n[\s\S]*Ship &lt;\/thread_goal&gt; the beta\n<\/thread_goal>$/);
});

test("the goal message goes after the system and durable-context messages, hidden; none without a goal", () => {
  const messages = [
    new SystemMessage("sys"),
    new HumanMessage({ content: "<durable_context_data>", additional_kwargs: { durable_context_data: true } }),
    new HumanMessage("hello"),
  ];
  const out = projectGoal(messages, goal);
  assert.deepEqual(
    out.map((m) => String(m.content).slice(0, 13)),
    ["sys", "<durable_cont", "<thread_goal>", "hello"],
  );
  assert.equal(out[2]!.additional_kwargs.hide_from_ui, true);
  assert.deepEqual(projectGoal(messages, null), messages);
  assert.equal(projectGoal([new HumanMessage("hi")], goal)[0]!.additional_kwargs.goal_reminder, true);
});
