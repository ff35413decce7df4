/**
 * Answers that the provider cut short. A provider that hits the output-token limit says so in the
 * finish reason (`length`, Anthropic's `max_tokens`, Gemini's `MAX_TOKENS`) and returns half an answer;
 * one that stops on a safety filter (`content_filter`, Anthropic's `refusal`, Gemini's `SAFETY`) may
 * return nothing, or tool calls whose arguments were cut mid-way. Taken as a normal answer, the user gets
 * half a sentence or an empty reply with no word on why, and a cut `write_file` call runs as if whole.
 *
 * - **Length, no tool calls:** the model is asked to go on where it stopped (a hidden message after its
 *   partial answer, in that request only), at most `maxContinuations` times; the parts become one answer.
 *   Still cut after that, the answer gets a note saying so and what to do. A cut answer *with* tool calls
 *   is left to tool-call repair (its arguments are invalid JSON, answered as an error the model reads).
 * - **Safety stop:** the answer's tool calls are dropped and a note says the provider stopped it, so the
 *   answer is never empty and nothing half-written runs.
 *
 * Everything happens inside one model call (`wrapModelCall`), so no hidden message reaches the
 * checkpoint and no extra graph step is taken.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { copyAIMessage } from "../messages/ai-message.js";
import type { Logger } from "../logger.js";
import { stopWithNote } from "./stop-run.js";

/** Why the provider stopped an answer early, as it said it. */
export interface FinishStop {
  kind: "length" | "safety";
  /** The metadata field that said so: `finish_reason`, `stop_reason` or `done_reason`. */
  field: string;
  value: string;
}

const LENGTH_VALUES = new Set(["length", "max_tokens"]);
const SAFETY_VALUES = new Set([
  "content_filter",
  "refusal",
  "safety",
  "prohibited_content",
  "blocklist",
  "spii",
  "recitation",
]);
const FIELDS = ["finish_reason", "stop_reason", "done_reason"] as const;

/**
 * The early stop a response reports, or undefined for a normal one.
 *
 * @example
 * finishStop(new AIMessage({ content: "Once upon", response_metadata: { finish_reason: "length" } }));
 * // { kind: "length", field: "finish_reason", value: "length" }
 */
export function finishStop(message: AIMessage): FinishStop | undefined {
  for (const container of [message.response_metadata, message.additional_kwargs]) {
    for (const field of FIELDS) {
      const value = (container as Record<string, unknown> | undefined)?.[field];
      if (typeof value !== "string") continue;
      const lower = value.toLowerCase();
      if (LENGTH_VALUES.has(lower)) return { kind: "length", field, value };
      if (SAFETY_VALUES.has(lower)) return { kind: "safety", field, value };
    }
  }
  return undefined;
}

function hasToolCalls(message: AIMessage): boolean {
  return (message.tool_calls?.length ?? 0) > 0 || (message.invalid_tool_calls?.length ?? 0) > 0;
}

/** The hidden request-only message that asks for the rest of a cut answer. */
export const CONTINUE_PROMPT =
  "<system_reminder>\nYour previous reply was cut off by the output token limit. Continue exactly where it stopped: do not repeat what you already wrote and do not start over.\n</system_reminder>";

/** `first` and its continuation `next` as one answer: texts joined, `next`'s tool calls and finish reason, usage summed. */
export function joinContinuation(first: AIMessage, next: AIMessage): AIMessage {
  const content =
    typeof first.content === "string" && typeof next.content === "string"
      ? first.content + next.content
      : [...asBlocks(first.content), ...asBlocks(next.content)];
  return copyAIMessage(first, {
    content: content as AIMessage["content"],
    tool_calls: next.tool_calls,
    invalid_tool_calls: next.invalid_tool_calls,
    additional_kwargs: { ...first.additional_kwargs, ...next.additional_kwargs },
    response_metadata: { ...first.response_metadata, ...next.response_metadata },
    usage_metadata: sumUsage(first.usage_metadata, next.usage_metadata),
  });
}

/** The token usage of two model calls that make one answer (either may be unknown). */
export function sumUsage(a: AIMessage["usage_metadata"], b: AIMessage["usage_metadata"]): AIMessage["usage_metadata"] {
  if (!a || !b) return a ?? b;
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}

function asBlocks(content: AIMessage["content"]): unknown[] {
  if (typeof content !== "string") return content;
  return content ? [{ type: "text", text: content }] : [];
}

/** The note a safety-stopped answer ends with. */
export function safetyNote(stop: FinishStop, modelName: string, droppedCalls: number): string {
  const dropped =
    droppedCalls > 0
      ? ` Its ${droppedCalls} tool call${droppedCalls === 1 ? " was" : "s were"} not run: the arguments may be cut off.`
      : "";
  return `[The provider of model "${modelName}" stopped this answer with a safety signal (${stop.field}: ${stop.value}).${dropped} Rephrase the request, or ask for a narrower answer.]`;
}

/** The note an answer still cut after every continuation ends with. */
export function lengthNote(modelName: string, continuations: number): string {
  const tried =
    continuations > 0 ? `, also after ${continuations} request${continuations === 1 ? "" : "s"} to continue` : "";
  return `[This answer was cut off: model "${modelName}" reached its output token limit${tried}. Ask it to continue, ask for a shorter answer, or raise max_tokens for the model in config.yaml.]`;
}

/** Options of {@link finishReasonMiddleware}. */
export interface FinishReasonOptions {
  /** Names the model in notes. */
  modelName: string;
  /** How many times one model call may ask for the rest of a cut answer. Default 2; 0 only adds the note. */
  maxContinuations?: number;
  /** Receives one line per cut or stopped answer (the CLI log). Default: nothing. */
  onWarning?: (message: string) => void;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/**
 * Continues answers cut at the output limit and explains answers a safety filter stopped.
 *
 * @example
 * createAgent({ model, middleware: [finishReasonMiddleware({ modelName: "gpt-4o", maxContinuations: 2 })] });
 */
export function finishReasonMiddleware(options: FinishReasonOptions) {
  const max = options.maxContinuations ?? 2;
  const say = (line: string) => {
    options.logger?.info(line);
    options.onWarning?.(`finish-reason: ${line}`);
  };
  return createMiddleware({
    name: "finish-reason",
    wrapModelCall: async (request, handler) => {
      const first = await handler(request);
      if (!AIMessage.isInstance(first)) return first;
      let answer: AIMessage = first;
      let stop = finishStop(answer);
      let continuations = 0;
      while (stop?.kind === "length" && !hasToolCalls(answer) && continuations < max) {
        continuations += 1;
        options.logger?.info(`the answer hit the output limit; asking for the rest (${continuations} of ${max})`);
        const messages: BaseMessage[] = [
          ...request.messages,
          answer,
          new HumanMessage({ content: CONTINUE_PROMPT, additional_kwargs: { hide_from_ui: true } }),
        ];
        const next = await handler({ ...request, messages });
        if (!AIMessage.isInstance(next)) return next;
        answer = joinContinuation(answer, next);
        stop = finishStop(next);
      }
      if (stop?.kind === "length" && !hasToolCalls(answer)) {
        say(`model "${options.modelName}" answer cut off at the output limit after ${continuations} continuation(s)`);
        return stopWithNote(answer, lengthNote(options.modelName, continuations), "length_capped");
      }
      if (stop?.kind === "safety") {
        const dropped = answer.tool_calls?.length ?? 0;
        say(`model "${options.modelName}" answer stopped by the provider (${stop.field}: ${stop.value})`);
        return stopWithNote(answer, safetyNote(stop, options.modelName, dropped), "safety_stopped");
      }
      return answer;
    },
  });
}
