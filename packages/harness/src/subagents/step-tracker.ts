/**
 * Follows a subagent run through its `values` stream: which steps are new, what the latest answer
 * text is, and how many tokens were spent.
 *
 * Each `values` chunk is the whole state, so steps are recognized by message id rather than by
 * position; a subagent whose history shrinks (summarization) is followed correctly. The tracker keeps
 * the last AI text it saw so a run stopped by its turn cap can still report a partial answer, and the
 * `stop_reason` a guard middleware (token budget, loop detection) stamps on the response it ends a run with.
 */
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { receiptOf } from "../middleware/tool-receipts.js";
import { ToolReceipt } from "../state/shapes.js";
import { type SubagentStepSummary, summarizeStep } from "./events.js";
import type { SubagentStopReason, SubagentTokenUsage } from "./types.js";

const GUARD_STOP_REASONS: ReadonlySet<string> = new Set<SubagentStopReason>(["token_capped", "loop_capped"]);

/** Placeholder result of a run that ended without any text. */
export const NO_RESPONSE_TEXT = "No response generated.";

function messagesOf(chunk: unknown): BaseMessage[] {
  const messages = (chunk as { messages?: unknown } | null)?.messages;
  return Array.isArray(messages) ? (messages as BaseMessage[]) : [];
}

/** Observes `values` chunks of one subagent run. */
export class StepTracker {
  private readonly seenIds = new Set<string>();
  private readonly seenObjects = new WeakSet<object>();
  private steps = 0;
  private usage: SubagentTokenUsage | undefined;
  private latestAiText = "";
  private lastMessages: BaseMessage[] = [];
  private guardStop: SubagentStopReason | undefined;
  private readonly receiptsById = new Map<string, ToolReceipt>();

  /** `onStep` receives every new AI or tool message, numbered from 1. */
  constructor(private readonly onStep: (index: number, summary: SubagentStepSummary) => void) {}

  /** Feeds one `values` chunk. */
  observe(chunk: unknown): void {
    const messages = messagesOf(chunk);
    if (messages.length > 0) this.lastMessages = messages;
    this.recordReceipts(chunk, messages);
    for (const message of messages) {
      if (!AIMessage.isInstance(message) && !ToolMessage.isInstance(message)) continue;
      // A guard replaces the response it stops on (same id, note appended), so AI text and the stop
      // reason are read from every chunk, not only from messages seen for the first time.
      if (AIMessage.isInstance(message)) this.recordText(message);
      if (this.isSeen(message)) continue;
      if (AIMessage.isInstance(message)) this.recordAi(message);
      const summary = summarizeStep(message);
      if (summary) this.onStep(++this.steps, summary);
    }
  }

  /** The most recent non-empty AI text, or "" when the subagent has not written any yet. */
  get partialAnswer(): string {
    return this.latestAiText;
  }

  /** `token_capped` or `loop_capped` when a guard middleware ended the run, else undefined. */
  get guardStopReason(): SubagentStopReason | undefined {
    return this.guardStop;
  }

  /** Summed token usage of the AI steps seen, or undefined when no step reported usage. */
  get tokenUsage(): SubagentTokenUsage | undefined {
    return this.usage ? { ...this.usage } : undefined;
  }

  /**
   * The receipts of the run's tool calls, in id order: those on its tool results and those in its
   * `tool_receipts` channel, so results that compaction removed still count.
   */
  get receipts(): ToolReceipt[] {
    const number = (receipt: ToolReceipt) => Number(receipt.id.slice(1)) || 0;
    return [...this.receiptsById.values()].sort((a, b) => number(a) - number(b));
  }

  /** The answer of a finished run: the latest AI text, else the last message's text, else a placeholder. */
  finalAnswer(): string {
    if (this.latestAiText !== "") return this.latestAiText;
    const last = this.lastMessages.at(-1);
    return last && last.text.trim() !== "" ? last.text : NO_RESPONSE_TEXT;
  }

  private recordReceipts(chunk: unknown, messages: readonly BaseMessage[]): void {
    const channel = (chunk as { tool_receipts?: unknown } | null)?.tool_receipts;
    const stored = Array.isArray(channel) ? channel : [];
    for (const candidate of stored) {
      const parsed = ToolReceipt.safeParse(candidate);
      if (parsed.success && !this.receiptsById.has(parsed.data.id)) this.receiptsById.set(parsed.data.id, parsed.data);
    }
    for (const message of messages) {
      const receipt = receiptOf(message);
      if (receipt && !this.receiptsById.has(receipt.id)) this.receiptsById.set(receipt.id, receipt);
    }
  }

  private isSeen(message: BaseMessage): boolean {
    if (message.id) {
      if (this.seenIds.has(message.id)) return true;
      this.seenIds.add(message.id);
      return false;
    }
    if (this.seenObjects.has(message)) return true;
    this.seenObjects.add(message);
    return false;
  }

  private recordText(message: AIMessage): void {
    if (message.text.trim() !== "") this.latestAiText = message.text;
    const reason = message.additional_kwargs?.stop_reason;
    if (typeof reason === "string" && GUARD_STOP_REASONS.has(reason)) this.guardStop = reason as SubagentStopReason;
  }

  private recordAi(message: AIMessage): void {
    const usage = message.usage_metadata;
    if (!usage) return;
    const total = this.usage ?? { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
    total.input_tokens += usage.input_tokens ?? 0;
    total.output_tokens += usage.output_tokens ?? 0;
    total.total_tokens += usage.total_tokens ?? (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0);
    this.usage = total;
  }
}
