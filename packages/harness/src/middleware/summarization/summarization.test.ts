import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { z } from "zod";
import { createHistoryArchive } from "../../history/history-archive.js";
import { ScriptedChatModel, type ScriptStep } from "../../testing/scripted-model.js";
import { tempHome } from "../../testing/temp-home.js";
import { latestUserMessageIndex, summarizationMiddleware, type SummarizationOptions } from "./summarization.js";

const bash = tool(async ({ command }) => `ran ${command}`, {
  name: "bash",
  description: "run a command",
  schema: z.object({ command: z.string() }),
});
/** Each turn: one tool call, then an answer. */
const turnScript = (): ScriptStep[] => [
  { tool_calls: [{ name: "bash", args: { command: "ls" } }] },
  { content: "answer" },
];

function setup(options: Partial<SummarizationOptions> & { summarizer: ScriptedChatModel }) {
  const model = new ScriptedChatModel(turnScript(), { loop: true, name: "run-model" });
  const warnings: string[] = [];
  const middleware = summarizationMiddleware({
    models: [options.summarizer, model],
    trigger: { type: "messages", value: 8 },
    keep: { type: "messages", value: 3 },
    trimTokensToSummarize: 2000,
    onWarning: (w) => warnings.push(w),
    ...options,
  });
  const agent = createAgent({ model, tools: [bash], middleware: [middleware], checkpointer: new MemorySaver() });
  return { agent, model, warnings };
}

async function runTurns(agent: ReturnType<typeof setup>["agent"], threadId: string, turns: number) {
  const config = { configurable: { thread_id: threadId } };
  for (let i = 0; i < turns; i += 1)
    await agent.invoke({ messages: [new HumanMessage({ id: `${threadId}-h${i}`, content: `question ${i}` })] }, config);
  const state = await agent.graph.getState(config);
  return state.values as { messages: BaseMessage[]; summary_text?: string };
}

test("compaction writes summary_text, removes old messages, and never adds a summary message", async (t) => {
  const dir = tempHome(t, { prefix: "deerflow-summ-" });
  const archive = createHistoryArchive(path.join(dir, "checkpoints.sqlite"));
  t.after(() => archive.close());
  const summarizer = new ScriptedChatModel([{ content: "SUMMARY-1" }, { content: "SUMMARY-2" }], {
    name: "summarizer",
  });
  const { agent, model, warnings } = setup({ summarizer, archive });

  const values = await runTurns(agent, "t1", 4); // 4 messages per turn
  assert.equal(values.summary_text, "SUMMARY-2");
  assert.ok(values.messages.length < 8, `compacted (${values.messages.length} messages)`);
  assert.ok(!values.messages.some((m) => m.text.includes("SUMMARY")), "no summary in messages");
  assert.deepEqual(warnings, []);
  // Every request the run model got kept tool calls and results together.
  for (const call of model.calls) {
    const first = call.messages[0];
    assert.ok(!(first instanceof ToolMessage), "no request starts with a stranded result");
  }
  // The second compaction folded the first summary in as its own escaped section.
  const secondPrompt = summarizer.calls[1]!.messages[0]!.text;
  assert.match(secondPrompt, /<existing_summary>\nSUMMARY-1\n<\/existing_summary>/);
  assert.match(secondPrompt, /<new_messages>\n[\s\S]*Human: question/);
  // Everything removed is in the archive, followed by a marker.
  const archived = archive.read("t1");
  assert.equal(archived.filter((e) => e.kind === "compaction").length, 2);
  const archivedIds = new Set(archived.flatMap((e) => (e.kind === "message" ? [e.message.id] : [])));
  for (const id of ["t1-h0", "t1-h1"]) assert.ok(archivedIds.has(id), `${id} archived`);
});

test("a failing, blank or hanging summarizer leaves the state unchanged and the run goes on", async () => {
  for (const step of [new Error("HTTP 503"), { content: "   " }, () => new Promise<never>(() => {})] as ScriptStep[]) {
    const summarizer = new ScriptedChatModel([step], { name: "summarizer", loop: true });
    const { agent, warnings } = setup({ summarizer, models: [summarizer], timeoutMs: 50 });
    const values = await runTurns(agent, "t-fail", 3);
    assert.equal(values.summary_text, undefined);
    assert.equal(values.messages.length, 12, "nothing removed");
    assert.equal(values.messages.at(-1)!.text, "answer", "the run completed");
    assert.ok(
      warnings.length > 0 && warnings.every((w) => /nothing was compacted this turn/.test(w)),
      warnings.join("\n"),
    );
  }
});

test("summary tokens never reach the user's messages stream", async () => {
  const summarizer = new ScriptedChatModel([{ content: "SECRET-SUMMARY-TEXT" }], { name: "summarizer", loop: true });
  const { agent } = setup({ summarizer });
  const config = { configurable: { thread_id: "t-stream" } };
  const streamed: string[] = [];
  for (let i = 0; i < 3; i += 1) {
    const stream = await agent.stream(
      { messages: [new HumanMessage({ id: `s-h${i}`, content: `question ${i}` })] },
      { ...config, streamMode: "messages" },
    );
    for await (const [chunk] of stream)
      streamed.push(typeof chunk.content === "string" ? chunk.content : JSON.stringify(chunk.content));
  }
  assert.ok(summarizer.callCount > 0, "compaction ran");
  assert.ok(streamed.includes("answer"), "the agent's own answer is streamed");
  assert.ok(!streamed.some((text) => text.includes("SECRET-SUMMARY-TEXT")), "the summary is not");
});

test("the latest user message is kept even when the cut passes it", async () => {
  assert.equal(
    latestUserMessageIndex([
      new HumanMessage("a"),
      new AIMessage("b"),
      new HumanMessage({ content: "x", additional_kwargs: { hide_from_ui: true } }),
    ]),
    0,
  );
  const summarizer = new ScriptedChatModel([{ content: "S" }], { loop: true });
  // One long turn: the user asks once, then the agent makes many tool calls.
  const model = new ScriptedChatModel(
    [
      ...Array.from({ length: 6 }, () => ({ tool_calls: [{ name: "bash", args: { command: "ls" } }] })),
      { content: "done" },
    ],
    { name: "run-model" },
  );
  const agent = createAgent({
    model,
    tools: [bash],
    middleware: [
      summarizationMiddleware({
        models: [summarizer],
        trigger: { type: "messages", value: 6 },
        keep: { type: "messages", value: 2 },
        trimTokensToSummarize: null,
      }),
    ],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "t-long" } };
  await agent.invoke({ messages: [new HumanMessage({ id: "the-request", content: "do the long task" })] }, config);
  const values = (await agent.graph.getState(config)).values as { messages: BaseMessage[] };
  assert.equal(values.messages[0]!.id, "the-request");
  assert.ok(
    model.calls.at(-1)!.messages.some((m) => m.id === "the-request"),
    "the model still sees the request",
  );
});

test("a token trigger met again right after a compaction waits until compacting frees a fair share of it", async () => {
  // 100 tokens a message: a 2,500-token trigger keeping 24 messages is met again by the kept tail and the
  // summary alone, so without the wait every model call (two new messages) summarized again.
  const summarizer = new ScriptedChatModel([{ content: "SUMMARY" }], { loop: true, name: "summarizer" });
  const { agent, model } = setup({
    summarizer,
    trigger: { type: "tokens", value: 2500 },
    keep: { type: "messages", value: 24 },
    tokenCounter: (messages) => messages.length * 100,
  });
  const values = await runTurns(agent, "t-thrash", 14);
  const summaries = summarizer.calls.length;
  const steps = model.calls.length;
  assert.ok(summaries > 0, "it still compacts");
  assert.ok(summaries <= steps / 2, `${summaries} summaries for ${steps} model calls`);
  assert.ok(values.messages.length <= 28, `the thread stays compact (${values.messages.length} messages)`);
});

test("the fixed overhead alone never fires a token trigger; with the window known it still bounds the request", async () => {
  const run = async (extra: Partial<SummarizationOptions>) => {
    const summarizer = new ScriptedChatModel([{ content: "SUMMARY" }], { loop: true, name: "summarizer" });
    const { agent } = setup({
      summarizer,
      trigger: { type: "tokens", value: 1000 },
      keep: { type: "messages", value: 2 },
      tokenCounter: (messages) => messages.length * 100,
      ...extra,
    });
    await runTurns(agent, "t-overhead", 2);
    return summarizer.calls.length;
  };
  // Two turns are 8 messages, 800 tokens: under the trigger. A system prompt and tools of 5,000 tokens
  // used to count, so every model call met the trigger.
  assert.equal(await run({ overheadTokens: 5000 }), 0, "the prompt and tools alone fired compaction");
  assert.ok((await run({ overheadTokens: 5000, maxInputTokens: 5500 })) > 0, "500 tokens left by the window");
});

test("before_summarization hooks see each compaction in a real run; a throwing one is reported and the run goes on", async () => {
  const summarizer = new ScriptedChatModel([{ content: "SUMMARY" }], { loop: true, name: "summarizer" });
  const seen: { threadId?: string; manual: boolean; ids: (string | undefined)[] }[] = [];
  const { agent, warnings } = setup({
    summarizer,
    beforeSummarization: [
      function explodes() {
        throw new Error("hook bug");
      },
      (event) =>
        void seen.push({ threadId: event.threadId, manual: event.manual, ids: event.messages.map((m) => m.id) }),
    ],
  });
  const values = await runTurns(agent, "t-hooks", 3);
  assert.equal(values.summary_text, "SUMMARY", "compacted despite the failing hook");
  assert.equal(values.messages.at(-1)!.text, "answer", "the run completed");
  assert.ok(seen.length > 0);
  assert.deepEqual(
    seen.map((event) => [event.threadId, event.manual]),
    seen.map(() => ["t-hooks", false]),
  );
  assert.ok(seen[0]!.ids.includes("t-hooks-h0"), "the first compaction handed over the first question");
  for (const event of seen)
    for (const id of event.ids) assert.ok(!values.messages.some((m) => m.id === id), `${id} was removed afterwards`);
  assert.ok(
    warnings.some((w) => /before_summarization hook explodes failed .*hook bug/.test(w)),
    warnings.join("\n"),
  );
});

test("the token trigger counts the task notes and goal every request carries", async () => {
  const notes = Array.from({ length: 8 }, (_, i) => ({
    id: `n${i}`,
    text: `note ${i} ${"detail ".repeat(60)}`,
    created_at: "",
  }));
  const goal = { objective: "Ship the beta ".repeat(50), set_at: "" };
  const compacts = async (extra: object) => {
    const summarizer = new ScriptedChatModel([{ content: "SUMMARY" }], { loop: true, name: "summarizer" });
    const { agent } = setup({
      summarizer,
      trigger: { type: "tokens", value: 1500 },
      keep: { type: "messages", value: 2 },
    });
    const config = { configurable: { thread_id: "notes" } };
    const said = "word ".repeat(280);
    await agent.invoke({ messages: [new HumanMessage(said)], ...extra } as never, config);
    await agent.invoke({ messages: [new HumanMessage(said)] }, config);
    return summarizer.calls.length > 0;
  };
  assert.equal(await compacts({}), false, "the messages alone stay under the trigger");
  assert.equal(await compacts({ task_notes: notes, goal }), true, "with the notes and goal counted they do not");
});
