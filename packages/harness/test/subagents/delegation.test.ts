/**
 * Delegation scenarios of issue 6 with a scripted lead (the kit's ScriptedChatModel in a real createAgent) and
 * scripted subagent graphs that record when they run.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, ToolMessage, createAgent } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { durableContextMiddleware } from "../../src/middleware/durable-context/index.js";
import { subagentLimitMiddleware } from "../../src/middleware/subagent-limit.js";
import { ThreadStateSchema } from "../../src/state/thread-state.js";
import type { TaskEvent } from "../../src/subagents/events.js";
import { type SubagentRegistryOptions, createSubagentRegistry } from "../../src/subagents/registry.js";
import { sha256Hex } from "../../src/subagents/status-contract.js";
import type { SubagentGraph, SubagentSpec } from "../../src/subagents/types.js";
import { cancelledTaskResults, createTaskTool } from "../../src/tools/task.js";
import { ScriptedChatModel } from "../../src/testing/scripted-model.js";

interface Run {
  prompt: string;
  type: string;
  start: number;
  end?: number;
  aborted?: boolean;
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

/**
 * Subagent factory whose graphs record their run, wait (`work`), then answer "<prompt> done".
 * `work` receives the run record and the subagent's signal.
 */
function recordingFactory(work: (run: Run, signal: AbortSignal) => Promise<void>) {
  const runs: Run[] = [];
  const createSubagent = (spec: SubagentSpec): SubagentGraph => ({
    stream: async (input, config) =>
      (async function* () {
        const prompt = input.messages[1]?.text ?? "";
        const run: Run = { prompt, type: spec.type, start: performance.now() };
        runs.push(run);
        try {
          await work(run, config.signal);
        } catch (error) {
          run.aborted = config.signal.aborted;
          throw error;
        }
        run.end = performance.now();
        yield {
          messages: [...input.messages, new AIMessage({ id: `sub-answer-${prompt}`, content: `${prompt} done` })],
        };
      })(),
  });
  return { runs, createSubagent };
}

const taskCall = (id: string, prompt: string, subagent_type = "general-purpose") => ({
  id,
  name: "task",
  args: { description: `Job ${prompt}`, prompt, subagent_type },
  type: "tool_call" as const,
});

interface LeadOptions {
  model: ScriptedChatModel;
  createSubagent: (spec: SubagentSpec) => SubagentGraph;
  onEvent?: (event: TaskEvent) => void;
  warnings?: string[];
  customAgents?: SubagentRegistryOptions["customAgents"];
}

function leadAgent(options: LeadOptions) {
  const task = createTaskTool({
    registry: createSubagentRegistry({ customAgents: options.customAgents }),
    createSubagent: options.createSubagent,
    parentTools: () => [task],
    emit: options.onEvent,
  });
  return createAgent({
    model: options.model,
    tools: [task],
    stateSchema: ThreadStateSchema,
    // Chain order as in the lead: durable-context (slot 5) before subagent-limit (slot 11), so the
    // limit's afterModel runs first and a dropped call never reaches the delegation ledger.
    middleware: [
      durableContextMiddleware(),
      subagentLimitMiddleware({ maxConcurrent: 2, onWarning: (w) => options.warnings?.push(w) }),
    ],
    checkpointer: new MemorySaver(),
  });
}

test("three delegations with max 2: two run concurrently, the third is dropped, results come back as task ToolMessages", async () => {
  const { runs, createSubagent } = recordingFactory((_run, signal) => sleep(30, signal));
  const model = new ScriptedChatModel([
    new AIMessage({
      id: "lead-1",
      content: "",
      tool_calls: [taskCall("t-a", "A"), taskCall("t-b", "B"), taskCall("t-c", "C")],
    }),
    new AIMessage({ id: "lead-2", content: "A and B are done." }),
  ]);
  const warnings: string[] = [];
  const events: TaskEvent[] = [];
  const agent = leadAgent({ model, createSubagent, warnings, onEvent: (event) => events.push(event) });

  const out = await agent.invoke(
    { messages: [new HumanMessage({ id: "h-1", content: "Do A, B and C." })] },
    { configurable: { thread_id: "t1" } },
  );

  assert.deepEqual(runs.map((run) => run.prompt).sort(), ["A", "B"], "exactly two subagents ran");
  const [a, b] = [runs[0]!, runs[1]!]; // two runs, asserted just above
  assert.ok(a.start < (b.end ?? Infinity) && b.start < (a.end ?? Infinity), "the two runs overlap in time");
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] ?? "", /kept the first 2, dropped 1 \(t-c\)/);

  const leadCall = out.messages.find((m) => m.id === "lead-1") as AIMessage;
  assert.deepEqual(
    leadCall.tool_calls?.map((call) => call.id),
    ["t-a", "t-b"],
  );
  assert.ok(!out.messages.some((m) => (m.id ?? "").startsWith("sub-answer")), "no subagent message reaches the lead");
  const results = out.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
  assert.deepEqual(
    results.map((m) => [m.tool_call_id, m.name, m.text]),
    [
      ["t-a", "task", "Task Succeeded. Result: A done"],
      ["t-b", "task", "Task Succeeded. Result: B done"],
    ],
  );
  for (const [message, answer] of [
    [results[0]!, "A done"],
    [results[1]!, "B done"],
  ] as const) {
    assert.deepEqual(message.additional_kwargs, {
      subagent_status: "completed",
      subagent_result_brief: answer,
      subagent_result_sha256: sha256Hex(answer),
    });
  }
  assert.equal(out.messages.at(-1)?.text, "A and B are done.");
  assert.equal(model.callCount, 2);
  assert.deepEqual(
    out.delegations.map((entry) => [entry.id, entry.status, entry.result_brief]),
    [
      ["t-a", "completed", "A done"],
      ["t-b", "completed", "B done"],
    ],
    "both results land in the delegation ledger; the dropped call does not",
  );
  assert.deepEqual(
    events
      .filter((event) => event.type !== "task_running")
      .map((event) => `${event.type}:${event.task_id}`)
      .sort(),
    ["task_completed:t-a", "task_completed:t-b", "task_started:t-a", "task_started:t-b"],
  );
});

test("a subagent over its timeout is reported timed_out and the lead goes on", async () => {
  const { runs, createSubagent } = recordingFactory((_run, signal) => sleep(60_000, signal));
  const model = new ScriptedChatModel([
    new AIMessage({ id: "lead-1", content: "", tool_calls: [taskCall("t-slow", "S", "slowpoke")] }),
    new AIMessage({ id: "lead-2", content: "The subagent timed out; doing it myself." }),
  ]);
  const events: TaskEvent[] = [];
  const agent = leadAgent({
    model,
    createSubagent,
    onEvent: (event) => events.push(event),
    customAgents: { slowpoke: { description: "Slow", timeout_seconds: 0.05 } },
  });

  const out = await agent.invoke(
    { messages: [new HumanMessage({ id: "h-1", content: "Do S." })] },
    { configurable: { thread_id: "t2" } },
  );

  const result = out.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m));
  assert.equal(result?.additional_kwargs.subagent_status, "timed_out");
  assert.match(result?.text ?? "", /^Task timed out\. Error: /);
  assert.equal(runs[0]?.aborted, true, "the subagent was told to stop");
  assert.equal(out.messages.at(-1)?.text, "The subagent timed out; doing it myself.");
  assert.deepEqual(
    out.delegations.map((entry) => [entry.id, entry.status]),
    [["t-slow", "timed_out"]],
  );
  assert.deepEqual(
    events.map((event) => event.type),
    ["task_started", "task_timed_out"],
  );
});

test("aborting the parent run cancels both running subagents and leaves the thread usable", async () => {
  const started = deferred();
  const cancelled = deferred();
  const { runs, createSubagent } = recordingFactory(async (_run, signal) => {
    if (runs.length === 2) started.resolve();
    await sleep(60_000, signal);
  });
  const events: TaskEvent[] = [];
  const model = new ScriptedChatModel([
    new AIMessage({ id: "lead-1", content: "", tool_calls: [taskCall("t-a", "A"), taskCall("t-b", "B")] }),
    new AIMessage({ id: "lead-2", content: "Resumed after the cancel." }),
  ]);
  const agent = leadAgent({
    model,
    createSubagent,
    onEvent: (event) => {
      events.push(event);
      if (events.filter((e) => e.type === "task_cancelled").length === 2) cancelled.resolve();
    },
  });
  const controller = new AbortController();
  const config = { configurable: { thread_id: "t3" } };

  const run = agent.invoke(
    { messages: [new HumanMessage({ id: "h-1", content: "Do A and B." })] },
    { ...config, signal: controller.signal },
  );
  await started.promise;
  controller.abort();
  await assert.rejects(run);
  await cancelled.promise;

  assert.deepEqual(
    runs.map((r) => r.aborted),
    [true, true],
    "both subagents saw the cancellation",
  );
  assert.deepEqual(
    events
      .filter((event) => event.type === "task_cancelled")
      .map((event) => event.task_id)
      .sort(),
    ["t-a", "t-b"],
  );

  // What a CLI does after Ctrl-C: record the interrupted delegations as cancelled, then resume.
  const interrupted = await agent.graph.getState(config);
  const cancelledResults = cancelledTaskResults(interrupted.values.messages);
  assert.deepEqual(
    cancelledResults.map((m) => [m.tool_call_id, m.text, m.additional_kwargs.subagent_status]),
    [
      ["t-a", "Task cancelled by user.", "cancelled"],
      ["t-b", "Task cancelled by user.", "cancelled"],
    ],
  );
  await agent.graph.updateState(config, { messages: cancelledResults });

  const next = await agent.invoke({ messages: [new HumanMessage({ id: "h-2", content: "Go on." })] }, config);
  assert.equal(next.messages.at(-1)?.text, "Resumed after the cancel.");
  assert.deepEqual(
    next.delegations.map((entry) => [entry.id, entry.status]),
    [
      ["t-a", "cancelled"],
      ["t-b", "cancelled"],
    ],
  );
  const resumedRequest = model.calls[1]?.messages.map((m) => m.getType()) ?? [];
  assert.deepEqual(
    resumedRequest.slice(-4),
    ["ai", "tool", "tool", "human"],
    "the resumed history pairs every call with a result",
  );
});
