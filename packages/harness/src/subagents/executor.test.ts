import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, createAgent, tool } from "langchain";
import { z } from "zod";
import { GENERAL_PURPOSE_SUBAGENT } from "./builtins.js";
import type { TaskEvent } from "./events.js";
import { runSubagent, type RunSubagentOptions } from "./executor.js";
import type { SubagentGraph, SubagentInput, SubagentRunConfig, SubagentType } from "./types.js";
import { reportInstructions } from "./verification.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { composeChain } from "../agent/compose-chain.js";
import { loopDetectionMiddleware } from "../middleware/loop-detection.js";
import { tokenUsageMiddleware } from "../middleware/token-usage.js";
import { taskToolMessage } from "../tools/task.js";

const echo = tool(async ({ text }) => `echo: ${text}`, {
  name: "echo",
  description: "Echo text.",
  schema: z.object({ text: z.string() }),
});

function options(
  overrides: Partial<RunSubagentOptions> & Pick<RunSubagentOptions, "createSubagent">,
): RunSubagentOptions & { events: TaskEvent[] } {
  const events: TaskEvent[] = [];
  return {
    taskId: "call_1",
    description: "Echo things",
    prompt: "Echo hello and report.",
    type: { ...GENERAL_PURPOSE_SUBAGENT, maxTurns: 25 },
    tools: [echo],
    timeoutSeconds: 60,
    emit: (event) => events.push(event),
    events,
    ...overrides,
  };
}

function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
}

/** A graph whose `stream` runs `body` as its values stream. */
function scripted(body: (input: SubagentInput, config: SubagentRunConfig) => AsyncGenerator<unknown>): SubagentGraph {
  return { stream: async (input, config) => body(input, config) };
}

test("a real createAgent subagent runs from its own prompt and reports every step and its usage", async () => {
  const model = new ScriptedChatModel([
    new AIMessage({
      id: "sub-ai-1",
      content: "Echoing first.",
      tool_calls: [{ id: "sub-call-1", name: "echo", args: { text: "hello" }, type: "tool_call" }],
      usage_metadata: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    }),
    new AIMessage({
      id: "sub-ai-2",
      content: "The echo said hello.",
      usage_metadata: { input_tokens: 20, output_tokens: 7, total_tokens: 27 },
    }),
  ]);
  let spec: { type: string; toolNames: string[]; maxTurns: number } | undefined;
  const opts = options({
    createSubagent: (s) => {
      spec = { type: s.type, toolNames: s.tools.map((t) => t.name), maxTurns: s.maxTurns };
      return createAgent({ model, tools: s.tools, checkpointer: false });
    },
  });
  const result = await runSubagent(opts);

  assert.deepEqual(result, {
    status: "completed",
    result: "The echo said hello.",
    tokenUsage: { input_tokens: 30, output_tokens: 12, total_tokens: 42 },
  });
  assert.deepEqual(spec, { type: "general-purpose", toolNames: ["echo"], maxTurns: 25 });
  const firstCall = model.calls[0]?.messages ?? [];
  assert.equal(firstCall.length, 2, "the subagent sees only its own system prompt and the job");
  assert.ok(SystemMessage.isInstance(firstCall[0]));
  assert.equal(firstCall[0].text, `${GENERAL_PURPOSE_SUBAGENT.systemPrompt}\n\n${reportInstructions([])}`);
  assert.ok(HumanMessage.isInstance(firstCall[1]));
  assert.equal(firstCall[1].text, "Echo hello and report.");

  assert.deepEqual(
    opts.events.map((event) => event.type),
    ["task_started", "task_running", "task_running", "task_running", "task_completed"],
  );
  const running = opts.events.filter((event) => event.type === "task_running");
  assert.deepEqual(
    running.map((event) => [event.message_index, event.message.role, event.message.text]),
    [
      [1, "ai", "Echoing first."],
      [2, "tool", "echo: hello"],
      [3, "ai", "The echo said hello."],
    ],
  );
  assert.deepEqual(running[0]?.message.tool_calls, [{ name: "echo", args: '{"text":"hello"}' }]);
  assert.deepEqual(opts.events[0], {
    type: "task_started",
    task_id: "call_1",
    description: "Echo things",
    subagent_type: "general-purpose",
  });
});

test("the parent's sandbox and thread_data are handed to the subagent with its own thread id", async () => {
  let seen: { input: SubagentInput; config: SubagentRunConfig } | undefined;
  const thread_data = { workspace_path: "/h/ws", uploads_path: "/h/up", outputs_path: "/h/out" };
  const result = await runSubagent(
    options({
      parentState: { sandbox: { sandbox_id: "sb-1" }, thread_data },
      parentThreadId: "parent-thread",
      createSubagent: () =>
        scripted(async function* (input, config) {
          seen = { input, config };
          yield { messages: [...input.messages, new AIMessage({ id: "a1", content: "ok" })] };
        }),
    }),
  );
  assert.equal(result.status, "completed");
  assert.deepEqual(seen?.input.sandbox, { sandbox_id: "sb-1" });
  assert.deepEqual(seen?.input.thread_data, thread_data);
  assert.notEqual(seen?.config.configurable.thread_id, "parent-thread");
  assert.equal(seen?.config.configurable.parent_thread_id, "parent-thread");
  assert.equal(seen?.config.recursionLimit, 25);
});

test("a subagent that throws ends failed with its error", async () => {
  const opts = options({
    createSubagent: () =>
      scripted(async function* () {
        yield { messages: [] };
        throw new Error("disk on fire");
      }),
  });
  const result = await runSubagent(opts);
  assert.deepEqual(result, { status: "failed", error: "disk on fire" });
  assert.deepEqual(opts.events.at(-1), { type: "task_failed", task_id: "call_1", error: "disk on fire" });
});

test("a factory that throws ends failed too", async () => {
  const result = await runSubagent(
    options({
      createSubagent: () => {
        throw new Error("unknown model qwen9");
      },
    }),
  );
  assert.deepEqual(result, { status: "failed", error: "unknown model qwen9" });
});

function loopingModel(withText: boolean) {
  return new ScriptedChatModel(
    Array.from(
      { length: 40 },
      (_, i) =>
        new AIMessage({
          id: `loop-${withText}-${i}`,
          content: withText ? `Partial finding ${i}` : "",
          tool_calls: [
            { id: `loop-call-${withText}-${i}`, name: "echo", args: { text: String(i) }, type: "tool_call" },
          ],
        }),
    ),
  );
}

test("hitting the turn cap with some AI text is completed with turn_capped and the partial answer", async () => {
  const model = loopingModel(true);
  const type: SubagentType = { ...GENERAL_PURPOSE_SUBAGENT, maxTurns: 6 };
  const result = await runSubagent(
    options({ type, createSubagent: (s) => createAgent({ model, tools: s.tools, checkpointer: false }) }),
  );
  assert.equal(result.status, "completed");
  assert.equal(result.stopReason, "turn_capped");
  assert.match(result.result ?? "", /^Partial finding \d+$/);
});

test("hitting the turn cap without any AI text is failed with turn_capped", async () => {
  const model = loopingModel(false);
  const type: SubagentType = { ...GENERAL_PURPOSE_SUBAGENT, maxTurns: 6 };
  const opts = options({ type, createSubagent: (s) => createAgent({ model, tools: s.tools, checkpointer: false }) });
  const result = await runSubagent(opts);
  assert.equal(result.status, "failed");
  assert.equal(result.stopReason, "turn_capped");
  assert.match(result.error ?? "", /turn budget \(6 steps\)/);
  assert.equal(opts.events.at(-1)?.type, "task_failed");
});

test("a subagent over its timeout is timed_out and its signal is aborted", async () => {
  let aborted = false;
  const opts = options({
    timeoutSeconds: 0.05,
    createSubagent: () =>
      scripted(async function* (_input, config) {
        yield { messages: [] };
        await untilAborted(config.signal).catch((error) => {
          aborted = true;
          throw error;
        });
      }),
  });
  const result = await runSubagent(opts);
  assert.equal(result.status, "timed_out");
  assert.match(result.error ?? "", /within 0.05 seconds/);
  assert.equal(aborted, true);
  assert.equal(opts.events.at(-1)?.type, "task_timed_out");
});

test("a subagent that ignores cancellation still ends timed_out", async () => {
  const result = await runSubagent(
    options({
      timeoutSeconds: 0.05,
      createSubagent: () =>
        scripted(async function* () {
          await new Promise(() => {});
        }),
    }),
  );
  assert.equal(result.status, "timed_out");
});

test("aborting the parent signal cancels the subagent", async () => {
  const parent = new AbortController();
  let subagentSignal: AbortSignal | undefined;
  const opts = options({
    signal: parent.signal,
    createSubagent: () =>
      scripted(async function* (_input, config) {
        subagentSignal = config.signal;
        yield { messages: [] };
        queueMicrotask(() => parent.abort());
        await untilAborted(config.signal);
      }),
  });
  const result = await runSubagent(opts);
  assert.deepEqual(result, { status: "cancelled" });
  assert.equal(subagentSignal?.aborted, true);
  assert.deepEqual(opts.events.at(-1), { type: "task_cancelled", task_id: "call_1" });
});

test("an already-aborted parent never starts the subagent", async () => {
  const parent = new AbortController();
  parent.abort();
  let built = false;
  const opts = options({
    signal: parent.signal,
    createSubagent: () => {
      built = true;
      return scripted(async function* () {});
    },
  });
  const result = await runSubagent(opts);
  assert.equal(result.status, "cancelled");
  assert.equal(built, false);
  assert.deepEqual(
    opts.events.map((event) => event.type),
    ["task_cancelled"],
  );
});

test("a run that returns no text reports the placeholder answer", async () => {
  const result = await runSubagent(
    options({
      createSubagent: () =>
        scripted(async function* (input) {
          yield { messages: [...input.messages, new AIMessage({ id: "empty", content: "" })] };
        }),
    }),
  );
  assert.deepEqual(result, { status: "completed", result: "No response generated." });
});

test("ToolMessage steps are summarized with their tool name and status", async () => {
  const opts = options({
    createSubagent: () =>
      scripted(async function* (input) {
        yield {
          messages: [
            ...input.messages,
            new ToolMessage({ id: "t1", tool_call_id: "x", name: "bash", status: "error", content: "Error: nope" }),
          ],
        };
      }),
  });
  await runSubagent(opts);
  const step = opts.events.find((event) => event.type === "task_running");
  assert.deepEqual(step, {
    type: "task_running",
    task_id: "call_1",
    message_index: 1,
    message: {
      role: "tool",
      type: "tool",
      id: "t1",
      text: "Error: nope",
      content: "Error: nope",
      name: "bash",
      status: "error",
    },
  });
});

test("an event sink that throws does not break the run", async () => {
  const result = await runSubagent(
    options({
      emit: () => {
        throw new Error("stream closed");
      },
      createSubagent: () =>
        scripted(async function* (input) {
          yield { messages: [...input.messages, new AIMessage({ id: "a1", content: "fine" })] };
        }),
    }),
  );
  assert.deepEqual(result, { status: "completed", result: "fine" });
});

test("a subagent stopped by loop detection is completed with loop_capped and the lead sees the cap", async () => {
  const repeat = () => ({ content: "", tool_calls: [{ name: "echo", args: { text: "again" } }] });
  const model = new ScriptedChatModel([repeat(), repeat(), repeat()]);
  const result = await runSubagent(
    options({
      createSubagent: (s) =>
        createAgent({
          model,
          tools: s.tools,
          middleware: composeChain([loopDetectionMiddleware({ warnThreshold: 2, hardLimit: 3, onWarning: () => {} })]),
          checkpointer: false,
        }),
    }),
  );
  assert.equal(result.status, "completed");
  assert.equal(result.stopReason, "loop_capped");
  assert.match(result.result ?? "", /Stopped: the same tool call \(echo\)/);
  const message = taskToolMessage(result, "call_1");
  assert.match(message.text, /^Task Succeeded \(capped: repeated tool-call loop\)\. Result: /);
  assert.equal(message.additional_kwargs.subagent_stop_reason, "loop_capped");
});

test("a subagent stopped by its token budget is completed with token_capped", async () => {
  const model = new ScriptedChatModel([
    {
      content: "Reading the first file.",
      tool_calls: [{ name: "echo", args: { text: "one" } }],
      usage_metadata: { input_tokens: 900, output_tokens: 200, total_tokens: 1100 },
    },
  ]);
  const result = await runSubagent(
    options({
      createSubagent: (s) =>
        createAgent({
          model,
          tools: s.tools,
          middleware: composeChain([tokenUsageMiddleware({ maxTokens: 1000, onWarning: () => {} })], undefined, {
            afterModelInModelCall: true,
          }),
          checkpointer: false,
        }),
    }),
  );
  assert.equal(result.status, "completed");
  assert.equal(result.stopReason, "token_capped");
  assert.match(result.result ?? "", /^Reading the first file\.\n\n\[Stopped: this run used 1,100 tokens/);
  assert.match(taskToolMessage(result, "call_1").text, /^Task Succeeded \(capped: token budget\)/);
});
