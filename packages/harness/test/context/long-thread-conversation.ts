/**
 * The body of long-thread.test.ts (the context-engineering issue's done-when scenario), run on a worker
 * thread: a 300-turn conversation with tool calls through a real createAgent (dangling-tool-call,
 * durable-context, summarization), the real ChatOpenAI client, and the fake OpenAI server in strict mode
 * (HTTP 400 on any unpaired tool call). Every answer numbers its tool calls "call_0", "call_1", as some
 * providers do, so ids recur across turns; one run is left interrupted mid-tool; one summary request
 * fails so the fallback candidate has to answer.
 *
 * Why a worker: node:test tracks every promise of its thread with an async hook (to know which test an
 * error belongs to), and 300 turns of langchain make millions of promises; on the test's own thread that
 * bookkeeping and the garbage it leaves were about 40% of the file's CPU. A worker has no such hook; an
 * assertion that fails here fails the worker, and the test with it, with the same message.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { isMainThread, workerData } from "node:worker_threads";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ChatOpenAI } from "@langchain/openai";
import { type ToolRuntime, createAgent, tool } from "langchain";
import { z } from "zod";
import { formatHistory, mergeHistory } from "../../src/history/format-history.js";
import { createHistoryArchive } from "../../src/history/history-archive.js";
import { danglingToolCallMiddleware } from "../../src/middleware/dangling-tool-call/index.js";
import { durableContextMiddleware } from "../../src/middleware/durable-context/index.js";
import { summarizationMiddleware } from "../../src/middleware/summarization/index.js";
import { createTokenCounter } from "../../src/model/tokens.js";
import {
  type ChatCompletionRequest,
  type FakeStep,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.js";

const TURNS = 300;
const TRIGGER = 4000;
const SKILL = "/mnt/skills/public/deep-research/SKILL.md";
const counter = createTokenCounter("gpt-4o");

const userText = (turn: number) =>
  `turn ${turn}: please look into item ${turn} and report back. ${"context ".repeat(turn % 7)}`;
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (p as { text?: string }).text ?? "").join("")
      : "";

/** The turn a request belongs to: the number in its latest real user message. */
function turnOf(body: ChatCompletionRequest): number {
  const user = body.messages
    .filter((m) => m.role === "user" && !textOf(m.content).startsWith("<durable_context_data>"))
    .at(-1);
  return Number(/^turn (\d+):/.exec(textOf(user?.content))?.[1] ?? -1);
}

/** What the model calls in a turn: a delegation every 25 turns, a skill read every 40, otherwise one or two bash calls. */
function callsFor(turn: number) {
  if (turn % 25 === 5)
    return [
      {
        id: "call_0",
        name: "task",
        arguments: { description: `Research topic ${turn}`, prompt: "dig", subagent_type: "general-purpose" },
      },
    ];
  if (turn % 40 === 7) return [{ id: "call_0", name: "read_file", arguments: { path: SKILL } }];
  if (turn % 3 === 0)
    return [0, 1].map((i) => ({ id: `call_${i}`, name: "bash", arguments: { command: `ls item-${turn}-${i}` } }));
  return [{ id: "call_0", name: "bash", arguments: { command: `cat item-${turn}` } }];
}

/** The OpenAI wire messages of a request, back as langchain messages (system prompt left out), to count them. */
function fromWire(body: ChatCompletionRequest): BaseMessage[] {
  return body.messages.flatMap((m): BaseMessage[] => {
    const content = textOf(m.content);
    if (m.role === "user") return [new HumanMessage(content)];
    if (m.role === "tool")
      return [new ToolMessage({ content, tool_call_id: m.tool_call_id ?? "", name: m.name as string | undefined })];
    if (m.role === "assistant") {
      const calls = (m.tool_calls ?? []) as Array<{ id: string; function: { name: string; arguments: string } }>;
      return [
        new AIMessage({
          content,
          tool_calls: calls.map((c) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) })),
        }),
      ];
    }
    return [];
  });
}

const bash = tool(
  async ({ command }) => `$ ${command}\n${"lorem ipsum dolor ".repeat(20 + ((command.length * 13) % 60))}`,
  {
    name: "bash",
    description: "Run a shell command.",
    schema: z.object({ command: z.string() }),
  },
);
const task = tool(
  async ({ description }, runtime: ToolRuntime) =>
    new ToolMessage({
      content: `Task Succeeded. Result: findings for ${description}`,
      tool_call_id: runtime.toolCallId,
      name: "task",
      additional_kwargs: {
        subagent_status: "completed",
        subagent_result_brief: `Findings for ${description}: all good`,
      },
    }),
  {
    name: "task",
    description: "Delegate.",
    schema: z.object({ description: z.string(), prompt: z.string(), subagent_type: z.string() }),
  },
);
const readFile = tool(
  async ({ path: file }, runtime: ToolRuntime) =>
    new ToolMessage({
      content: "---\nname: deep-research\ndescription: Research a topic in depth\n---\n# Steps ...",
      tool_call_id: runtime.toolCallId,
      name: "read_file",
      additional_kwargs: { skill_context_entry: { path: file, description: "Research a topic in depth" } },
    }),
  { name: "read_file", description: "Read a file.", schema: z.object({ path: z.string() }) },
);

/** Runs the 300 turns in `dir` and checks everything; throws on the first failed assertion. */
export async function runLongThread(dir: string): Promise<void> {
  const dbFile = path.join(dir, "checkpoints.sqlite");

  const summaryRequests: number[] = [];
  const summaries = new Map<number, string>(); // request index -> summary text sent back
  const script = (body: ChatCompletionRequest, step: number): FakeStep => {
    if (!body.tools?.length) {
      summaryRequests.push(step);
      if (summaryRequests.length === 3 && body.model === "fake-summary") return { status: 500 };
      const text = `SUMMARY-MARKER #${summaryRequests.length}: the user asks numbered questions; all up to turn ${turnOf(body)} were answered from bash output.`;
      summaries.set(step, text);
      return { content: text };
    }
    const turn = turnOf(body);
    if (body.messages.at(-1)!.role === "tool") return { content: `answer to turn ${turn}` };
    return { tool_calls: callsFor(turn) };
  };
  const server = await startFakeOpenAIServer({ strict: true, script });
  const archive = createHistoryArchive(dbFile);
  try {
    const client = (model: string) =>
      new ChatOpenAI({ model, apiKey: "test", maxRetries: 0, configuration: { baseURL: server.url } });
    const runModel = client("gpt-4o");
    const checkpointer = SqliteSaver.fromConnString(dbFile);
    const warnings: string[] = [];
    const agent = createAgent({
      model: runModel,
      tools: [bash, task, readFile],
      systemPrompt: "You are DeerFlow, an agent that answers with the help of tools.",
      middleware: [
        danglingToolCallMiddleware(),
        durableContextMiddleware({
          skillsContainerPath: "/mnt/skills",
          skillReadToolNames: ["read_file"],
          onWarning: (w) => warnings.push(w),
        }),
        summarizationMiddleware({
          models: [client("fake-summary"), runModel],
          trigger: { type: "tokens", value: TRIGGER },
          keep: { type: "messages", value: 10 },
          trimTokensToSummarize: 2000,
          tokenCounter: counter,
          archive,
          onWarning: (w) => warnings.push(w),
        }),
      ],
      checkpointer,
    });

    const threadId = "long-thread";
    const config = { configurable: { thread_id: threadId }, recursionLimit: 50 };
    for (let turn = 0; turn < TURNS; turn += 1) {
      if (turn === 150) {
        // A run that was stopped while its tool ran: the call stays unanswered in the checkpoint.
        await agent.graph.updateState(config, {
          messages: [
            new AIMessage({
              id: "interrupted-ai",
              content: "",
              tool_calls: [{ id: "call_0", name: "bash", args: { command: "sleep 600" } }],
            }),
          ],
        });
      }
      await agent.invoke({ messages: [new HumanMessage({ id: `h-${turn}`, content: userText(turn) })] }, config);
    }

    // Zero 400s, and every request had a scripted answer.
    assert.deepEqual(server.rejected, []);
    assert.deepEqual(server.unexpected, []);
    assert.deepEqual(warnings, []);
    assert.ok(summaryRequests.length >= 10, `compaction ran (${summaryRequests.length} summary requests)`);
    assert.ok(
      server.requests.some((b) => !b.tools?.length && b.model === "gpt-4o"),
      "the run model stood in for the failed summary model",
    );

    // The whole conversation, from the archive plus the live checkpoint.
    const live = ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
    const history = mergeHistory(archive.read(threadId), live);
    const messages = history.flatMap((e) => (e.kind === "message" ? [e.message] : []));
    assert.deepEqual(
      messages.filter((m) => m.type === "human").map((m) => m.text),
      Array.from({ length: TURNS }, (_, i) => userText(i)),
    );
    assert.deepEqual(
      messages.filter((m) => m.type === "ai" && m.text.startsWith("answer")).map((m) => m.text),
      Array.from({ length: TURNS }, (_, i) => `answer to turn ${i}`),
    );
    const expectedResults = Array.from({ length: TURNS }, (_, i) => callsFor(i).length).reduce((a, b) => a + b, 0);
    assert.equal(messages.filter((m) => m.type === "tool").length, expectedResults);
    assert.ok(messages.some((m) => m.id === "interrupted-ai"));
    const printed = formatHistory(history);
    assert.equal(
      (printed.match(/──── compacted \d+ messages at /g) ?? []).length,
      history.filter((e) => e.kind === "compaction").length,
    );
    assert.ok(printed.includes(`user: ${userText(0)}`) && printed.includes(`assistant: answer to turn ${TURNS - 1}`));

    // Every message ever checkpointed is in the history; no checkpoint ever held a summary or a data block.
    const historyIds = new Set(messages.map((m) => m.id));
    let checkpoints = 0;
    for await (const tuple of checkpointer.list({ configurable: { thread_id: threadId } })) {
      checkpoints += 1;
      for (const message of (tuple.checkpoint.channel_values.messages ?? []) as BaseMessage[]) {
        assert.ok(
          !message.text.includes("SUMMARY-MARKER"),
          `checkpoint ${tuple.checkpoint.id} holds a summary message`,
        );
        assert.ok(!message.additional_kwargs?.durable_context_data, "a data block was checkpointed");
        assert.ok(historyIds.has(message.id), `message ${message.id} is missing from history`);
      }
    }
    assert.ok(checkpoints > TURNS);

    // Every request stays under the trigger plus one turn.
    const turnTokens = new Map<number, BaseMessage[]>();
    let turn = -1;
    for (const message of messages) {
      if (message.type === "human") turn += 1;
      turnTokens.set(turn, [...(turnTokens.get(turn) ?? []), message]);
    }
    const oneTurn = Math.max(...[...turnTokens.values()].map((group) => counter(group)));
    const agentRequests = server.requests
      .map((body, index) => ({ body, index }))
      .filter(({ body }) => body.tools?.length);
    for (const { body, index } of agentRequests) {
      const tokens = counter(fromWire(body));
      assert.ok(
        tokens <= TRIGGER + oneTurn,
        `request #${index} has ${tokens} tokens (trigger ${TRIGGER}, one turn ${oneTurn})`,
      );
    }

    // After the first compaction, every request carries the durable-context block with the latest summary.
    const firstSummary = Math.min(...summaries.keys());
    let latest = "";
    for (const [index, body] of server.requests.entries()) {
      if (summaries.has(index)) latest = summaries.get(index)!;
      if (index <= firstSummary || !body.tools?.length) continue;
      const data = body.messages.filter(
        (m) => m.role === "user" && textOf(m.content).startsWith("<durable_context_data>"),
      );
      assert.equal(data.length, 1, `request #${index} lacks the data block`);
      assert.ok(
        textOf(data[0]!.content).includes(`## Conversation summary so far\n${latest}`),
        `request #${index} lacks the latest summary`,
      );
      assert.equal(body.messages[1], data[0], "the block follows the system message");
      const system = body.messages.filter((m) => m.role === "system");
      assert.equal(system.length, 1);
      assert.match(textOf(system[0]!.content), /Durable context authority contract/);
      assert.ok(!textOf(system[0]!.content).includes("SUMMARY-MARKER"));
    }

    // Completed delegations compacted away long ago are still listed as completed, newest first.
    const lastData = textOf(agentRequests.at(-1)!.body.messages[1]!.content);
    assert.ok(!live.some((m) => m.text.includes("Research topic 5 ")), "the delegation's own messages are long gone");
    assert.match(
      lastData,
      /- \[completed\] Research topic 5 \(via general-purpose; completed result; do NOT delegate again; reuse this result\) -> Findings for Research topic 5/,
    );
    assert.ok(lastData.indexOf("Research topic 280") < lastData.indexOf("Research topic 5 "), "newest first");
    assert.match(
      lastData,
      /## Active skills[^\n]*\n- deep-research: Research a topic in depth -> \/mnt\/skills\/public\/deep-research\/SKILL\.md/,
    );
  } finally {
    archive.close();
    await server.close();
  }
}

if (!isMainThread && (workerData as { longThreadDir?: string } | null)?.longThreadDir)
  await runLongThread((workerData as { longThreadDir: string }).longThreadDir);
