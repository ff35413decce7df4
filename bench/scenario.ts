/**
 * The benchmark scenario shared by every variant: a zero-latency scripted model and an in-process
 * tool, so the figures measure the harness around the model, not the model.
 *
 * A turn is: user message -> model calls `note` -> tool result -> model calls `note` -> tool result ->
 * model answers. Three model calls, two tool runs. The model records when each call starts and ends
 * and how many tokens each request holds; the tool records its own run time, which the overhead
 * figures subtract.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { BaseChatModel, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createDeepAgent } from "deepagents";
import { createAgent, summarizationMiddleware } from "langchain";
import { z } from "zod";
import { createLeadAgent, parseConfigText } from "../packages/harness/src/index.js";
import { type CountableTool, countTokens } from "../packages/harness/src/model/tokens.js";

export type VariantName = "deerflow" | "deerflow-nosum" | "createAgent" | "deepagents" | "summarizing";

/** Timing and size records of one variant's calls. */
export interface Recorder {
  /** [start, end] of each lead model call (tools bound), in ms. */
  calls: [number, number][];
  /** Tool run time accumulated since the last model call. */
  toolMs: number;
  /** Tool time between consecutive model calls, aligned with `calls` (index i: after call i-1). */
  toolGaps: number[];
  requestTokens: number[];
  /** Of each agent request, the messages without the system prompt: what a token trigger measures. */
  conversationTokens: number[];
  summarizerCalls: number;
  /** The tools bound to the first agent call, as bound (a peer variant can be given the same schemas). */
  agentTools?: BindToolsInput[];
  /** The system prompt of the first agent call. */
  agentSystemPrompt?: string;
  /** Bytes of the conversation's own new content (user text, model text and tool-call args, tool output). */
  newMessageBytes: number;
  /** Every model request, in order, when asked for (the token figures, bench/tokens.ts). */
  requests?: ModelRequest[];
}

/** What a model call was for, told apart by its tools and its prompt. */
export type RequestKind = "agent" | "summarizer" | "title" | "memory";

/** One model request: its purpose, input tokens (messages and tool schemas), output tokens, and for agent calls the request serialized message by message. */
export interface ModelRequest {
  kind: RequestKind;
  input: number;
  output: number;
  /** Of `input`: the bound tools' schemas, and the system messages. */
  toolTokens: number;
  systemTokens: number;
  /** Agent calls only: each message as a provider would receive it (role, text, tool calls), in order. */
  serialized?: string[];
}

export function newRecorder(): Recorder {
  return {
    calls: [],
    toolMs: 0,
    toolGaps: [],
    requestTokens: [],
    conversationTokens: [],
    summarizerCalls: 0,
    newMessageBytes: 0,
  };
}

/** A message as it goes over the wire: role, content, tool calls and the id of the call it answers (no message ids). */
function wireText(message: BaseMessage): string {
  const ai = message as AIMessage;
  return JSON.stringify([
    message.getType(),
    message.content,
    ai.tool_calls?.map((c) => [c.id, c.name, c.args]) ?? [],
    (message as { tool_call_id?: string }).tool_call_id ?? null,
  ]);
}

function requestKind(messages: BaseMessage[], agent: boolean): RequestKind {
  if (agent) return "agent";
  const text = messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
  if (text.includes("long-term memory")) return "memory";
  if (text.startsWith("Write a title")) return "title";
  return "summarizer";
}

const TOOL_TEXT = "Observation: ".padEnd(400, "lorem ipsum dolor sit amet ");
const TURN_TEXT = (turn: number) => `Turn ${turn}: look something up twice and report. `.padEnd(200, "context ");

/** A chat model that plays the scenario instantly. Calls without tools (summarizers) get a summary. */
class BenchModel extends BaseChatModel {
  private seq = 0;
  constructor(
    private readonly recorder: Recorder,
    private readonly toolNames: string[] = [],
    private readonly tools: BindToolsInput[] = [],
  ) {
    super({});
  }
  _llmType() {
    return "bench";
  }
  override bindTools(tools: BindToolsInput[]): Runnable {
    const names = tools.map((t) => (t as { name?: string }).name ?? "").filter(Boolean);
    return new BenchModel(this.recorder, names, tools) as unknown as Runnable;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const start = performance.now();
    // Fixed-width ids, like real providers' (a growing number would add bytes as the thread ages).
    const id = `bench-${String(process.pid).padStart(7, "0")}-${String(++this.seq).padStart(8, "0")}-${Math.random().toString(36).slice(2, 8).padEnd(6, "0")}`;
    let message: AIMessage;
    const kind = requestKind(messages, this.toolNames.includes("note"));
    if (kind === "agent" && !this.recorder.agentTools) {
      this.recorder.agentTools = this.tools;
      const system = messages.find((m) => m.getType() === "system");
      if (system) this.recorder.agentSystemPrompt = system.text;
    }
    if (kind === "title") message = new AIMessage({ id, content: "Repeated lookups and reports" });
    else if (kind === "memory") message = new AIMessage({ id, content: '{"newFacts": []}' });
    else if (kind === "summarizer") {
      this.recorder.summarizerCalls++;
      message = new AIMessage({
        id,
        content: "Summary: the user asked for lookups each turn; each was done and reported.",
      });
    } else {
      this.recorder.requestTokens.push(countTokens(messages));
      this.recorder.conversationTokens.push(countTokens(messages.filter((m) => m.getType() !== "system")));
      this.recorder.toolGaps.push(this.recorder.toolMs);
      this.recorder.toolMs = 0;
      const lastHuman = messages.findLastIndex((m) => m.getType() === "human" && !m.additional_kwargs?.hide_from_ui);
      const toolsThisTurn = messages.slice(lastHuman + 1).filter((m) => m.getType() === "tool").length;
      message =
        toolsThisTurn < 2
          ? new AIMessage({
              id,
              content: "",
              tool_calls: [
                { id: `${id}-c`, name: "note", args: { topic: `step ${toolsThisTurn}` }, type: "tool_call" },
              ],
            })
          : new AIMessage({ id, content: "Done: both lookups are reported above." });
    }
    this.recorder.requests?.push({
      kind,
      input: countTokens(messages, { tools: this.tools as CountableTool[] }),
      toolTokens: countTokens([], { tools: this.tools as CountableTool[] }),
      systemTokens: countTokens(messages.filter((m) => m.getType() === "system")),
      output: countTokens([message]),
      ...(kind === "agent" ? { serialized: messages.map(wireText) } : {}),
    });
    if (this.toolNames.includes("note")) {
      this.recorder.calls.push([start, performance.now()]);
      this.recorder.newMessageBytes +=
        Buffer.byteLength(String(message.content)) + Buffer.byteLength(JSON.stringify(message.tool_calls ?? []));
    }
    return { generations: [{ text: String(message.content), message }] };
  }
}

function noteTool(recorder: Recorder) {
  return tool(
    async ({ topic }: { topic: string }) => {
      const start = performance.now();
      const text = `${topic}: ${TOOL_TEXT}`;
      recorder.newMessageBytes += Buffer.byteLength(text);
      recorder.toolMs += performance.now() - start;
      return text;
    },
    { name: "note", description: "Look up a note on a topic.", schema: z.object({ topic: z.string() }) },
  );
}

/** One variant ready to run turns on one thread; `file` is its SQLite checkpoint file. */
export interface Variant {
  name: VariantName;
  recorder: Recorder;
  file: string;
  turn(index: number): Promise<void>;
  close(): Promise<void>;
}

/** Summarization of variant (a): the trigger and keep, so request size stays bounded. */
const SUMMARIZATION_ON =
  "summarization: {enabled: true, trigger: {type: tokens, value: 4000}, keep: {type: messages, value: 10}}";
export const SUMMARIZATION_TRIGGER_TOKENS = 4000;

/** What a variant records beyond timings, and whether (a) runs with titles and memory on (their defaults). */
export interface VariantOptions {
  recordRequests?: boolean;
  titleAndMemory?: boolean;
  /**
   * (d) only: bind these tools' schemas (another variant's, as recorded from its first agent call) and
   * send this system prompt instead of the one `note` tool and the one-line prompt. Only `note` runs;
   * the others are stand-ins with the same name, description and argument schema.
   */
  peerTools?: { tools: BindToolsInput[]; systemPrompt: string };
  /** (d) only: the summarization trigger counts with the harness's `countTokens` instead of langchain's estimate. */
  harnessCounter?: boolean;
}

/** A stand-in with the schema a model would be shown for `bound` (a langchain tool or an OpenAI-format tool). */
function standIn(bound: BindToolsInput, note: ReturnType<typeof noteTool>) {
  const openai = convertToOpenAITool(bound as never) as {
    function: { name: string; description?: string; parameters?: Record<string, unknown> };
  };
  if (openai.function.name === "note") return note;
  return tool(async () => "unused", {
    name: openai.function.name,
    description: openai.function.description ?? "",
    schema: openai.function.parameters ?? { type: "object", properties: {} },
  });
}

/** Builds a variant in `dir` (a fresh directory). */
export async function buildVariant(name: VariantName, dir: string, options: VariantOptions = {}): Promise<Variant> {
  mkdirSync(dir, { recursive: true });
  const recorder = newRecorder();
  if (options.recordRequests) recorder.requests = [];
  const model = new BenchModel(recorder);
  const tools = [noteTool(recorder)];
  const config = { configurable: { thread_id: "bench" }, recursionLimit: 1000 };
  const input = (index: number) => {
    recorder.newMessageBytes += Buffer.byteLength(TURN_TEXT(index));
    return { messages: [{ role: "user", content: TURN_TEXT(index) }] };
  };
  if (name === "deerflow" || name === "deerflow-nosum") {
    // With titles and memory: memory's debounce at 0 and a flush after each turn, as for a user who pauses longer than the default 30 s between turns.
    const extras = options.titleAndMemory
      ? "memory: {enabled: true, debounce_seconds: 0}\ntitle: {enabled: true}\n"
      : "memory: {enabled: false}\ntitle: {enabled: false}\n";
    const yaml = `sandbox: {use: local}\n${extras}${name === "deerflow" ? SUMMARIZATION_ON : "summarization: {enabled: false}"}\n`;
    const agent = await createLeadAgent(parseConfigText(yaml, { source: null, env: {} }), {
      home: dir,
      env: {},
      chatModel: model,
      tools,
      onWarning: () => {},
    });
    return {
      name,
      recorder,
      file: path.join(dir, "checkpoints.sqlite"),
      turn: async (i) => {
        await agent.invoke(input(i), config);
        // What the CLI and the server do once a run ends: apply checkpoints.retention (counted as harness time).
        await agent.deerflow.afterRun("bench");
        if (options.titleAndMemory) await agent.harness.memory()?.flush();
      },
      close: () => agent.close(),
    };
  }
  const file = path.join(dir, "checkpoints.sqlite");
  const checkpointer = SqliteSaver.fromConnString(file);
  // (d): the peer a TypeScript user would pick, langchain's own summarization at (a)'s trigger and keep.
  const summarizing = summarizationMiddleware({
    model,
    trigger: { tokens: SUMMARIZATION_TRIGGER_TOKENS },
    keep: { messages: 10 },
    ...(options.harnessCounter ? { tokenCounter: (messages: BaseMessage[]) => countTokens(messages) } : {}),
  });
  const peerTools = options.peerTools?.tools.map((bound) => standIn(bound, tools[0]!)) ?? tools;
  const peerPrompt = options.peerTools?.systemPrompt ?? "You are a helpful agent.";
  const agent =
    name === "createAgent"
      ? createAgent({ model, tools, systemPrompt: "You are a helpful agent.", checkpointer })
      : name === "summarizing"
        ? createAgent({
            model,
            tools: peerTools,
            systemPrompt: peerPrompt,
            checkpointer,
            middleware: [summarizing],
          })
        : createDeepAgent({ model, tools, systemPrompt: "You are a helpful agent.", checkpointer });
  return {
    name,
    recorder,
    file,
    turn: async (i) =>
      void (await (agent as { invoke(input: unknown, config: unknown): Promise<unknown> }).invoke(input(i), config)),
    close: async () => (checkpointer as unknown as { db: { close(): void } }).db.close(),
  };
}
