/**
 * A chat model that plays back a script, for tests that drive a real `createAgent` loop offline.
 *
 * It exists so that an agent test fails at the exact call where the agent did something the test did
 * not expect: a call past the end of the script throws with the call number and the last message the
 * agent sent, and `assertDone()` catches the opposite mistake (the agent stopped early). Every message it
 * emits gets a fresh id, because the `messages` reducer replaces by id (ts-ecosystem R7).
 *
 * Streaming: it has no `_streamResponseChunks`, so langchain falls back to `_generate` and streams the
 * whole reply as one chunk; `streamMode: "messages"` still works. Use the fake OpenAI server for
 * token-by-token streaming.
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import { AIMessage, type AIMessageChunk, type BaseMessage, type UsageMetadata } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { nextId, preview } from "./ids.js";

/** A tool call in a scripted reply; `id` is generated when omitted. */
export interface ScriptedToolCall {
  name: string;
  args?: Record<string, unknown>;
  id?: string;
}

/** A reply written as plain data: text, tool calls, or both. */
export interface ScriptedReply {
  content?: AIMessage["content"];
  tool_calls?: ScriptedToolCall[];
  /** Message id; generated when omitted. Must not repeat an id this model already emitted. */
  id?: string;
  usage_metadata?: UsageMetadata;
}

/** A step computed at call time from the messages the model received. `callIndex` counts from 0. */
export type ScriptStepFunction = (
  messages: BaseMessage[],
  callIndex: number,
) => AIMessage | ScriptedReply | Promise<AIMessage | ScriptedReply>;

/** One model call's worth of script: a reply, an `AIMessage`, an `Error` to throw, or a function. */
export type ScriptStep = ScriptedReply | AIMessage | Error | ScriptStepFunction;

/** Call options: what `bindTools` and `createAgent` pass down to each call. */
export interface ScriptedChatModelCallOptions extends BaseChatModelCallOptions {
  tools?: BindToolsInput[];
}

/** What the model received on one call. */
export interface ScriptedCall {
  /** 0-based call number. */
  index: number;
  /** The messages sent, system prompt first when the agent has one. */
  messages: BaseMessage[];
  /** Names of the tools bound for this call, in order. */
  toolNames: string[];
  options: ScriptedChatModelCallOptions;
}

/** Options of {@link ScriptedChatModel}. */
export interface ScriptedChatModelOptions {
  /** Replay the script from the start when it runs out (never "runs out"). Default false. */
  loop?: boolean;
  /** Name used in error messages, handy when a test has several models. Default "ScriptedChatModel". */
  name?: string;
}

/**
 * A `BaseChatModel` that answers each call with the next step of its script.
 *
 * @example
 * ```ts
 * const model = new ScriptedChatModel([
 *   { tool_calls: [{ name: "bash", args: { command: "ls" } }] },
 *   { content: "Done." },
 * ]);
 * const agent = createAgent({ model, tools: [bash] });
 * await agent.invoke({ messages: [{ role: "user", content: "list files" }] });
 * model.assertDone();
 * assert.deepEqual(model.calls[1].toolNames, ["bash"]);
 * ```
 */
export class ScriptedChatModel extends BaseChatModel<ScriptedChatModelCallOptions> {
  /** Every call received, in order, including the one that found the script exhausted. */
  readonly calls: ScriptedCall[] = [];
  readonly label: string;
  private readonly steps: ScriptStep[];
  private readonly loop: boolean;
  private readonly usedSteps = new Set<number>();
  private readonly emittedIds = new Set<string>();

  /** @param steps an array, or any finite iterable such as a generator: `(function* () { ... })()`. */
  constructor(steps: Iterable<ScriptStep>, options: ScriptedChatModelOptions = {}) {
    super({});
    this.steps = [...steps];
    this.loop = options.loop ?? false;
    this.label = options.name ?? "ScriptedChatModel";
    if (this.loop && this.steps.length === 0) throw new Error(`${this.label}: loop: true needs at least one step.`);
  }

  _llmType(): string {
    return "scripted";
  }

  /** Number of calls received so far. */
  get callCount(): number {
    return this.calls.length;
  }

  /** Steps never used yet (with `loop`, steps not used at least once). */
  get remaining(): number {
    return this.steps.length - this.usedSteps.size;
  }

  /** Binds tools the way provider models do: as call options, so each call records what it saw. */
  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<ScriptedChatModelCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, ScriptedChatModelCallOptions> {
    return this.withConfig({ ...kwargs, tools });
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const index = this.calls.length;
    const toolNames = (options.tools ?? []).map(toolName);
    this.calls.push({ index, messages: [...messages], toolNames, options });

    const stepIndex = this.loop ? index % this.steps.length : index;
    const step = this.steps[stepIndex];
    if (step === undefined) throw new Error(this.exhaustedMessage(index, messages, toolNames));
    this.usedSteps.add(stepIndex);

    if (step instanceof Error) throw step;
    const reply = typeof step === "function" ? await step(messages, index) : step;
    const message = this.toMessage(reply, stepIndex);
    return { generations: [{ text: message.text, message }] };
  }

  /** Throws when script steps were never used: the agent stopped earlier than the test expected. */
  assertDone(): void {
    if (this.remaining === 0) return;
    const unused = this.steps.map((_, i) => i).filter((i) => !this.usedSteps.has(i));
    const first = unused[0]!;
    throw new Error(
      `${this.label}: ${unused.length} of ${this.steps.length} script steps were never used ` +
        `(first unused: step ${first + 1}, ${describeStep(this.steps[first]!)}). ` +
        `The model was called ${this.calls.length} time(s); the last call got: ${describeLast(this.calls.at(-1)?.messages ?? [])}.`,
    );
  }

  private toMessage(reply: AIMessage | ScriptedReply, stepIndex: number): AIMessage {
    const source = AIMessage.isInstance(reply) ? reply : undefined;
    const id = reply.id ?? nextId("scripted-ai-");
    if (this.emittedIds.has(id)) {
      throw new Error(
        `${this.label}: step ${stepIndex + 1} would emit message id "${id}" a second time. The messages reducer ` +
          `replaces messages by id, so this would overwrite history. Leave the id out to get a fresh one.`,
      );
    }
    this.emittedIds.add(id);
    const toolCalls = (reply.tool_calls ?? []).map((call) => ({
      name: call.name,
      args: call.args ?? {},
      id: call.id ?? nextId("call_"),
      type: "tool_call" as const,
    }));
    return new AIMessage({
      content: reply.content ?? "",
      id,
      tool_calls: toolCalls,
      usage_metadata: reply.usage_metadata,
      additional_kwargs: source?.additional_kwargs ?? {},
      response_metadata: source?.response_metadata ?? {},
      invalid_tool_calls: source?.invalid_tool_calls,
      name: source?.name,
    });
  }

  private exhaustedMessage(index: number, messages: BaseMessage[], toolNames: string[]): string {
    return [
      `${this.label}: unexpected model call #${index + 1}: the script ran out after ${this.steps.length} step(s).`,
      `Last message: ${describeLast(messages)}`,
      `Bound tools: ${toolNames.length > 0 ? toolNames.join(", ") : "(none)"}`,
      "Add a step for this call, or find out why the agent called the model again.",
    ].join("\n");
  }
}

function toolName(tool: BindToolsInput): string {
  const t = tool as { name?: unknown; function?: { name?: unknown } };
  if (typeof t.name === "string") return t.name;
  if (typeof t.function?.name === "string") return t.function.name;
  return "(unnamed)";
}

function describeLast(messages: BaseMessage[]): string {
  const last = messages.at(-1);
  if (!last) return "(no messages)";
  const calls =
    AIMessage.isInstance(last) && last.tool_calls?.length
      ? ` + tool calls ${last.tool_calls.map((c) => c.name).join(", ")}`
      : "";
  return `(${last.type}) "${preview(last.text)}"${calls}`;
}

function describeStep(step: ScriptStep): string {
  if (step instanceof Error) return `an error "${preview(step.message, 80)}"`;
  if (typeof step === "function") return "a function step";
  const names = (step.tool_calls ?? []).map((c) => c.name);
  if (names.length > 0) return `tool calls ${names.join(", ")}`;
  const text = typeof step.content === "string" ? step.content : JSON.stringify(step.content ?? "");
  return `the reply "${preview(text, 80)}"`;
}
