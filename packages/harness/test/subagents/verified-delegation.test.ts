/**
 * Verified delegation (issue 26 part 2) with scripted models in real createAgent graphs: the subagent's
 * tool calls get runtime receipts, its report's citations and claims are checked against them, and its
 * acceptance criteria left open stay in the lead's durable context past a compaction.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type AgentMiddleware, type BaseMessage, HumanMessage, ToolMessage, createAgent, tool } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { danglingToolCallMiddleware } from "../../src/middleware/dangling-tool-call/dangling-tool-call.js";
import { durableContextMiddleware } from "../../src/middleware/durable-context/index.js";
import { summarizationMiddleware } from "../../src/middleware/summarization/summarization.js";
import { toolReceiptsMiddleware } from "../../src/middleware/tool-receipts.js";
import { ThreadStateSchema } from "../../src/state/thread-state.js";
import type { TaskEvent } from "../../src/subagents/events.js";
import { createSubagentRegistry } from "../../src/subagents/registry.js";
import type { CreateSubagent, SubagentGraph, SubagentSpec } from "../../src/subagents/types.js";
import type { Verification } from "../../src/subagents/verification.js";
import { createTaskTool } from "../../src/tools/task.js";
import { ScriptedChatModel, type ScriptStep } from "../../src/testing/scripted-model.js";

const bash = tool(async ({ command }) => `$ ${command}\n12 passing`, {
  name: "bash",
  description: "Run a command.",
  schema: z.object({ command: z.string() }),
});
const readFile = tool(async ({ path }) => `contents of ${path}`, {
  name: "read_file",
  description: "Read a file.",
  schema: z.object({ path: z.string() }),
});

/** A subagent factory whose graphs are real createAgent graphs with the receipts middleware. */
function scriptedSubagents(scripts: ScriptStep[][]) {
  const models: ScriptedChatModel[] = [];
  const createSubagent = (spec: SubagentSpec): SubagentGraph => {
    const model = new ScriptedChatModel(scripts[models.length] ?? [], { name: `sub-${models.length}` });
    models.push(model);
    return createAgent({
      model,
      tools: spec.tools,
      stateSchema: ThreadStateSchema,
      middleware: [toolReceiptsMiddleware({ showInRequest: true })],
      checkpointer: false,
    }) as unknown as SubagentGraph;
  };
  return { models, createSubagent };
}

function lead(
  model: ScriptedChatModel,
  createSubagent: CreateSubagent,
  events: TaskEvent[],
  extra: AgentMiddleware[] = [],
) {
  const task = createTaskTool({
    registry: createSubagentRegistry({}),
    createSubagent,
    parentTools: () => [bash, readFile, task],
    emit: (event) => events.push(event),
  });
  return createAgent({
    model,
    tools: [task, bash],
    stateSchema: ThreadStateSchema,
    middleware: [danglingToolCallMiddleware(), toolReceiptsMiddleware(), durableContextMiddleware(), ...extra],
    checkpointer: new MemorySaver(),
  });
}

const delegate = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: "task",
  args: {
    description: "Check the tests",
    prompt: "Run the test suite and report.",
    subagent_type: "general-purpose",
    ...extra,
  },
});

async function runOnce(subScript: ScriptStep[], taskExtra: Record<string, unknown> = {}) {
  const { models, createSubagent } = scriptedSubagents([subScript]);
  const model = new ScriptedChatModel([{ tool_calls: [delegate("t-1", taskExtra)] }, { content: "Done." }]);
  const events: TaskEvent[] = [];
  const agent = lead(model, createSubagent, events);
  const out = await agent.invoke(
    { messages: [new HumanMessage("Check the tests.")] },
    { configurable: { thread_id: "v1" } },
  );
  const result = out.messages.find((m: BaseMessage) => ToolMessage.isInstance(m) && m.name === "task") as ToolMessage;
  const verification = result.additional_kwargs.subagent_verification as Verification | undefined;
  return { out, result, verification, events, subModel: models[0]!, leadModel: model };
}

test("a report citing a receipt that does not exist is flagged to the lead and on the stream", async () => {
  const { result, verification, events } = await runOnce([
    { tool_calls: [{ name: "read_file", args: { path: "package.json" } }] },
    { content: "The test script is `npm test` [r1]. I checked the output [r7]." },
  ]);
  assert.deepEqual(verification?.flags, [{ kind: "unknown_citation", detail: "r7" }]);
  assert.deepEqual(verification?.citations, ["r1", "r7"]);
  assert.equal(verification?.receipts, 1);
  assert.match(result.text, /FLAG: the report cites r7, which none of the subagent's tool calls produced/);
  const verified = events.find((event) => event.type === "task_verified");
  assert.ok(verified && verified.type === "task_verified");
  assert.deepEqual(verified.flags, [{ kind: "unknown_citation", detail: "r7" }]);
  const order = events.filter((event) => event.type !== "task_running").map((event) => event.type);
  assert.deepEqual(order, ["task_started", "task_verified", "task_completed"]);
});

test("a report claiming work that no receipt shows is flagged", async () => {
  const { result, verification } = await runOnce([
    { tool_calls: [{ name: "read_file", args: { path: "package.json" } }] },
    { content: "I read package.json [r1]. All 12 tests passed." },
  ]);
  assert.equal(verification?.flags.length, 1);
  assert.equal(verification?.flags[0]?.kind, "unbacked_claim");
  assert.match(verification?.flags[0]?.detail ?? "", /^tests passed: "All 12 tests passed\."/);
  assert.match(result.text, /FLAG: the report claims tests passed/);
});

test("a clean report is not flagged, and the subagent saw its receipts", async () => {
  const { result, verification, subModel, events } = await runOnce([
    { tool_calls: [{ name: "bash", args: { command: "npm test" } }] },
    { content: "Ran npm test [r1]: all 12 tests passed [r1]." },
  ]);
  assert.deepEqual(verification?.flags, []);
  assert.equal(verification?.receipts, 1);
  assert.equal(result.text, "Task Succeeded. Result: Ran npm test [r1]: all 12 tests passed [r1].");
  const seen = subModel.calls[1]!.messages.find((m) => m.type === "tool")!;
  assert.match(seen.text, /12 passing\n\n\[receipt r1: bash ok, \d+ B\]$/);
  assert.match(subModel.calls[0]!.messages[0]!.text, /cite the receipts/);
  const verified = events.find((event) => event.type === "task_verified");
  assert.ok(verified && verified.type === "task_verified" && verified.receipts === 1);
});

test("the lead's own tool calls get receipts in state", async () => {
  const model = new ScriptedChatModel([
    {
      tool_calls: [
        { name: "bash", args: { command: "ls" } },
        { name: "bash", args: { command: "pwd" } },
      ],
    },
    { content: "Listed." },
  ]);
  const agent = lead(model, () => {
    throw new Error("no subagent");
  }, []);
  const out = await agent.invoke({ messages: [new HumanMessage("ls")] }, { configurable: { thread_id: "lead-r" } });
  const receipts = (out as unknown as { tool_receipts: { id: string; tool: string; status: string }[] }).tool_receipts;
  assert.deepEqual(receipts.map((r) => r.id).sort(), ["r1", "r2"]);
  assert.ok(receipts.every((r) => r.tool === "bash" && r.status === "ok"));
});

test("the receipts channel keeps the newest 20 and never takes back the older ones the messages still hold", async () => {
  const step = (n: number) => ({
    tool_calls: [
      { name: "bash", args: { command: `echo ${n}a` } },
      { name: "bash", args: { command: `echo ${n}b` } },
    ],
  });
  const model = new ScriptedChatModel([
    ...Array.from({ length: 13 }, (_, n) => step(n)),
    { content: "Done." },
    { tool_calls: [{ name: "bash", args: { command: "echo last" } }] },
    { content: "Done again." },
  ]);
  const agent = lead(model, () => {
    throw new Error("no subagent");
  }, []);
  const config = { configurable: { thread_id: "lead-cap" }, recursionLimit: 200 };
  const ids = (out: unknown) => (out as { tool_receipts: { id: string }[] }).tool_receipts.map((r) => r.id);
  const first = await agent.invoke({ messages: [new HumanMessage("many")] }, config);
  assert.deepEqual(
    ids(first),
    Array.from({ length: 20 }, (_, n) => `r${n + 7}`),
  );
  const second = await agent.invoke({ messages: [new HumanMessage("one more")] }, config);
  assert.deepEqual(
    ids(second),
    Array.from({ length: 20 }, (_, n) => `r${n + 8}`),
  );
});

test("unmet and unverified criteria stay in durable context past a compaction until a later task meets them", async () => {
  const criteria = ["npm test passes", "README documents the flag"];
  const { createSubagent } = scriptedSubagents([
    [
      { tool_calls: [{ name: "bash", args: { command: "npm test" } }] },
      {
        content:
          "Ran the tests [r1].\n\nAcceptance:\nC1: met [r1] 12 passing\nC2: unmet - I had no time for the README",
      },
    ],
    [
      { tool_calls: [{ name: "bash", args: { command: "grep flag README.md" } }] },
      { content: "Acceptance:\nC1: met [r1] the README has a Flags section" },
    ],
  ]);
  const steps: ScriptStep[] = [
    { tool_calls: [delegate("t-1", { acceptance_criteria: criteria })] },
    { content: "Tests pass; README still open." },
    ...Array.from({ length: 4 }, () => [
      { tool_calls: [{ name: "bash", args: { command: "ls" } }] },
      { content: "ok" },
    ]).flat(),
    { tool_calls: [delegate("t-2", { acceptance_criteria: ["README documents the flag"] })] },
    { content: "README done." },
    { content: "All met." },
  ];
  const model = new ScriptedChatModel(steps);
  const summarizer = new ScriptedChatModel([{ content: "We delegated a test run." }], { loop: true });
  const agent = lead(
    model,
    createSubagent,
    [],
    [
      summarizationMiddleware({
        models: [summarizer],
        trigger: { type: "messages", value: 8 },
        keep: { type: "messages", value: 2 },
        trimTokensToSummarize: 2000,
      }),
    ],
  );
  const config = { configurable: { thread_id: "crit" } };
  for (let i = 0; i < 5; i += 1)
    await agent.invoke({ messages: [new HumanMessage({ id: `h${i}`, content: `step ${i}` })] }, config);

  const state = (await agent.graph.getState(config)).values as {
    messages: BaseMessage[];
    acceptance_gaps: { criterion: string; status: string }[];
  };
  assert.ok(!state.messages.some((m) => m.type === "tool" && m.name === "task"), "the task result was compacted away");
  assert.deepEqual(
    state.acceptance_gaps.map((gap) => [gap.criterion, gap.status]),
    [["README documents the flag", "unmet"]],
  );
  const block = model.calls.at(-1)!.messages.find((m) => m.additional_kwargs?.durable_context_data === true);
  assert.match(
    block?.text ?? "",
    /## Open acceptance criteria[\s\S]*- \[unmet\] README documents the flag \(I had no time for the README\)/,
  );

  // A later task meets it: the gap is gone, and the next request no longer lists it.
  await agent.invoke({ messages: [new HumanMessage({ id: "h5", content: "Fix the README." })] }, config);
  await agent.invoke({ messages: [new HumanMessage({ id: "h6", content: "Status?" })] }, config);
  const after = (await agent.graph.getState(config)).values as { acceptance_gaps: unknown[] };
  assert.deepEqual(after.acceptance_gaps, []);
  const lastBlock = model.calls.at(-1)!.messages.find((m) => m.additional_kwargs?.durable_context_data === true);
  assert.doesNotMatch(lastBlock?.text ?? "", /Open acceptance criteria/);

  // The user clears the list with a state update (null).
  await agent.graph.updateState(config, {
    acceptance_gaps: [{ criterion: "x", status: "unmet", task_id: "t-x", created_at: "2026-01-01T00:00:00Z" }],
  });
  await agent.graph.updateState(config, { acceptance_gaps: null });
  assert.deepEqual(((await agent.graph.getState(config)).values as { acceptance_gaps: unknown[] }).acceptance_gaps, []);
});

test("a task with criteria lists them in the subagent's prompt; an unanswered one is unverified", async () => {
  const { verification, subModel } = await runOnce([{ content: "Looked at it. C1: met, trust me." }], {
    acceptance_criteria: ["lint is clean", "docs updated"],
  });
  assert.match(subModel.calls[0]!.messages[0]!.text, /C1\. lint is clean\nC2\. docs updated/);
  assert.deepEqual(
    verification?.criteria.map((check) => [check.criterion, check.status]),
    [
      ["lint is clean", "unverified"],
      ["docs updated", "unverified"],
    ],
  );
});

test("the model answers a bad acceptance_criteria with a validation error, not a crash", async () => {
  const model = new ScriptedChatModel([
    { tool_calls: [delegate("t-bad", { acceptance_criteria: Array.from({ length: 11 }, (_, i) => `c${i}`) })] },
    { content: "Retrying." },
  ]);
  const agent = lead(model, () => {
    throw new Error("never built");
  }, []);
  const out = await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "bad" } });
  const result = out.messages.find((m: BaseMessage) => ToolMessage.isInstance(m)) as ToolMessage | undefined;
  assert.ok(result);
  assert.match(result.text, /acceptance_criteria/);
  assert.equal(out.messages.at(-1)?.text, "Retrying.");
});
