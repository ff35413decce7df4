/**
 * Background delegation with a scripted lead (the kit's ScriptedChatModel in a real createAgent): the lead
 * starts a subagent with run_in_background, keeps working while it runs, collects its result with
 * background_tasks, and the run's end cancels what it left running.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemorySaver } from "@langchain/langgraph";
import { ToolMessage, createAgent, tool } from "langchain";
import { z } from "zod";
import { backgroundTasksMiddleware } from "../../src/middleware/background-tasks.js";
import { durableContextMiddleware } from "../../src/middleware/durable-context/index.js";
import { ThreadStateSchema } from "../../src/state/thread-state.js";
import { BackgroundTasks } from "../../src/subagents/background.js";
import type { TaskEvent } from "../../src/subagents/events.js";
import { createSubagentRegistry } from "../../src/subagents/registry.js";
import type { SubagentGraph } from "../../src/subagents/types.js";
import { createBackgroundTasksTool } from "../../src/tools/background-tasks.js";
import { createTaskTool } from "../../src/tools/task.js";
import { ScriptedChatModel } from "../../src/testing/scripted-model.js";
import { AIMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A subagent that answers "<prompt> done" once `gate` opens, or throws when its signal aborts. */
function gatedSubagent(gate: Promise<void>, seen: { signal?: AbortSignal }) {
  return (): SubagentGraph => ({
    stream: async (input, config) =>
      (async function* () {
        seen.signal = config.signal;
        await Promise.race([
          gate,
          new Promise((_, reject) => config.signal.addEventListener("abort", () => reject(config.signal.reason))),
        ]);
        yield {
          messages: [
            ...input.messages,
            new AIMessage({ id: "sub-answer", content: `${input.messages[1]?.text} done` }),
          ],
        };
      })(),
  });
}

function leadAgent(
  model: ScriptedChatModel,
  createSubagent: () => SubagentGraph,
  extraTools: StructuredToolInterface[],
) {
  const tasks = new BackgroundTasks();
  const events: TaskEvent[] = [];
  const warnings: string[] = [];
  const task = createTaskTool({
    registry: createSubagentRegistry(),
    createSubagent,
    parentTools: () => [task],
    emit: (event) => events.push(event),
    background: { tasks, maxRunning: 2 },
  });
  const agent = createAgent({
    model,
    tools: [task, createBackgroundTasksTool({ tasks }), ...extraTools],
    stateSchema: ThreadStateSchema,
    middleware: [durableContextMiddleware(), backgroundTasksMiddleware({ tasks, onWarning: (w) => warnings.push(w) })],
    checkpointer: new MemorySaver(),
  });
  return { agent, tasks, events, warnings };
}

const backgroundTask = (prompt: string) => ({
  name: "task",
  id: "bg-1",
  args: { description: "Scan", prompt, subagent_type: "general-purpose", run_in_background: true },
});

test("the lead keeps working while a background subagent runs, then collects its result", async () => {
  const gate = deferred();
  const seen: { signal?: AbortSignal } = {};
  let statusWhileWorking = "";
  const model = new ScriptedChatModel([
    { tool_calls: [backgroundTask("scan the logs")] },
    { tool_calls: [{ name: "background_tasks", args: { action: "list" } }] },
    { tool_calls: [{ name: "own_work", args: {} }] },
    { tool_calls: [{ name: "background_tasks", args: { action: "collect", task_id: "bg-1" } }] },
    { content: "The scan found: scan the logs done" },
  ]);
  const lead = leadAgent(model, gatedSubagent(gate.promise, seen), [
    tool(
      async () => {
        statusWhileWorking = lead.tasks.list("lead")[0]?.status ?? "none";
        gate.resolve(); // the subagent finishes only after the lead has done work of its own
        return "own work done";
      },
      { name: "own_work", description: "The lead's own work.", schema: z.object({}) },
    ),
  ]);

  await lead.agent.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: "lead" } });

  const state = await lead.agent.graph.getState({ configurable: { thread_id: "lead" } });
  const results = (state.values as { messages: unknown[] }).messages.filter((m): m is ToolMessage =>
    ToolMessage.isInstance(m),
  );
  assert.deepEqual(
    results.map((m) => m.name),
    ["task", "background_tasks", "own_work", "background_tasks"],
  );
  assert.match(results[0]!.text, /^Task started in the background \(task_id: bg-1\)/);
  assert.equal(results[0]!.additional_kwargs.subagent_background, true);
  assert.match(results[1]!.text, /bg-1 \[running\] Scan \(general-purpose\)/);
  assert.equal(statusWhileWorking, "running", "the subagent was still running while the lead worked");
  assert.equal(results[3]!.text, "Background task bg-1 (Scan): Task Succeeded. Result: scan the logs done");
  assert.equal(results[3]!.additional_kwargs.subagent_status, "completed");
  assert.equal(results[3]!.additional_kwargs.background_task_id, "bg-1");
  assert.deepEqual(
    lead.events.map((event) => event.type),
    ["task_started", "task_running", "task_completed"],
  );
  assert.deepEqual(lead.tasks.list("lead"), [], "collected: nothing is kept");
  const ledger = (state.values as { delegations: { id: string; status: string; result_brief?: string }[] }).delegations;
  assert.deepEqual(
    ledger.map((entry) => [entry.id, entry.status, entry.result_brief]),
    [["bg-1", "completed", "scan the logs done"]],
    "the ledger records the collected outcome",
  );
  assert.equal(seen.signal?.aborted, false, "a finished subagent is not cancelled");
  assert.deepEqual(lead.warnings, []);
  model.assertDone();
});

test("the run's end cancels a background subagent the lead never collected", async () => {
  const seen: { signal?: AbortSignal } = {};
  const model = new ScriptedChatModel([
    { tool_calls: [backgroundTask("never finishes")] },
    { content: "Answering without waiting." },
  ]);
  const lead = leadAgent(model, gatedSubagent(new Promise(() => {}), seen), []);

  try {
    await lead.agent.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: "lead" } });
  } finally {
    // Only matters when the middleware failed to end the task: the test then fails instead of hanging.
    void lead.tasks.closeAll();
  }

  assert.equal(seen.signal?.aborted, true, "the subagent's signal fired at the run's end");
  assert.deepEqual(
    lead.events.map((event) => event.type),
    ["task_started", "task_cancelled"],
    "its terminal event is emitted before the run returns",
  );
  assert.deepEqual(lead.tasks.list("lead"), []);
  assert.deepEqual(lead.warnings, [
    "background-tasks: the run ended: cancelled 1 running background task(s), dropped 0 uncollected result(s).",
  ]);
  model.assertDone();
});

test("without a background store the task tool offers no run_in_background and always waits", () => {
  const task = createTaskTool({
    registry: createSubagentRegistry(),
    createSubagent: gatedSubagent(Promise.resolve(), {}),
    parentTools: [],
  });
  const shape = (task.schema as z.ZodObject).shape as Record<string, unknown>;
  assert.equal("run_in_background" in shape, false);
  assert.doesNotMatch(task.description, /run_in_background/);
});

test("background_tasks explains a missing or unknown task_id, and cancel stops a running task", async () => {
  const tasks = new BackgroundTasks();
  const tool = createBackgroundTasksTool({ tasks });
  const call = (args: Record<string, unknown>) =>
    tool.invoke(
      { id: "c", name: "background_tasks", args, type: "tool_call" },
      { configurable: { thread_id: "t" } },
    ) as Promise<ToolMessage>;

  const none = await call({ action: "collect" });
  assert.equal(none.text, "Error: collect needs a task_id. This run has no background tasks.");
  assert.equal(none.status, "error");
  assert.equal((await call({ action: "list" })).text, "No background tasks in this run.");

  const seen: { signal?: AbortSignal } = {};
  for (const id of ["a", "b"]) {
    tasks.start("t", {
      taskId: id,
      description: `Job ${id}`,
      subagentType: "bash",
      maxRunning: 2,
      run: (signal) =>
        new Promise((resolve) => {
          seen.signal = signal;
          signal.addEventListener("abort", () => resolve({ status: "cancelled" }));
        }),
    });
  }
  const unknown = await call({ action: "cancel", task_id: "zzz" });
  assert.match(unknown.text, /^Error: There is no background task "zzz".*Background tasks of this run: a, b\./);
  const ambiguous = await call({ action: "cancel" });
  assert.match(ambiguous.text, /cancel needs a task_id/);

  const stillRunning = await call({ action: "collect", task_id: "a", wait_seconds: 0 });
  assert.match(stillRunning.text, /^Background task a \[running\] Job a \(bash\), 0 steps, \d+ s is still running/);

  const cancelled = await call({ action: "cancel", task_id: "b" });
  assert.equal(cancelled.text, "Background task b (Job b): Task cancelled by user.");
  assert.equal(cancelled.additional_kwargs.subagent_status, "cancelled");
  assert.ok(seen.signal?.aborted);
  assert.deepEqual(tasks.ids("t"), ["a"]);
  await tasks.closeAll();
  assert.deepEqual(tasks.ids("t"), []);
});

test("a subagent gets neither task nor background_tasks", async () => {
  const tasks = new BackgroundTasks();
  const background = createBackgroundTasksTool({ tasks });
  const echo = tool(async () => "x", { name: "echo", description: "Echo.", schema: z.object({}) });
  let names: string[] = [];
  const task = createTaskTool({
    registry: createSubagentRegistry(),
    createSubagent: (spec) => {
      names = spec.tools.map((t) => t.name);
      return gatedSubagent(Promise.resolve(), {})();
    },
    parentTools: () => [task, background, echo],
    background: { tasks, maxRunning: 1 },
  });
  await task.invoke(
    {
      id: "c1",
      name: "task",
      args: { description: "d", prompt: "p", subagent_type: "general-purpose" },
      type: "tool_call",
    },
    { configurable: { thread_id: "t" } },
  );
  assert.deepEqual(names, ["echo"]);
});
