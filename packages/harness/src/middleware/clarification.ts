/**
 * Turns an `ask_clarification` call into the question shown to the user, and makes the run stop there.
 *
 * The tool is `returnDirect`, and langchain ends a run after the tools step only when the *last*
 * ToolMessage comes from such a tool. So after each model call this moves clarification calls behind
 * the response's other tool calls (the tool node appends results in call order); the other calls still
 * run. The tool call itself is answered here without running the tool: a ToolMessage with the readable
 * question and, in `additional_kwargs.clarification`, the structured request, which a CLI or server
 * reads with {@link clarificationFromMessages}. Bad arguments give an error ToolMessage instead, so the
 * model can fix them and the run goes on.
 */
import { createHash } from "node:crypto";
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { copyAIMessage } from "../messages/ai-message.js";
import {
  ASK_CLARIFICATION_TOOL_NAME,
  AskClarificationArgs,
  type ClarificationField,
  parseClarificationArgs,
  type ClarificationType,
  formatClarification,
} from "../tools/ask-clarification.js";
import type { Logger } from "../logger.js";

/** A question the run stopped on, as read back from the thread's messages. */
export interface PendingClarification {
  question: string;
  clarification_type: ClarificationType;
  context?: string;
  options?: string[];
  /** A form to fill in (v2); when present it takes precedence over `options`. */
  fields?: ClarificationField[];
  /** The formatted text (icon, context, question, numbered options). */
  text: string;
  tool_call_id: string;
}

/**
 * Returns `message` with its `ask_clarification` calls moved after every other tool call (same id), or
 * `undefined` when they already come last or there are none.
 */
export function moveClarificationLast(message: AIMessage): AIMessage | undefined {
  const calls = message.tool_calls ?? [];
  const asks = calls.filter((call) => call.name === ASK_CLARIFICATION_TOOL_NAME);
  if (asks.length === 0) return undefined;
  const others = calls.filter((call) => call.name !== ASK_CLARIFICATION_TOOL_NAME);
  const reordered = [...others, ...asks];
  if (reordered.every((call, index) => call === calls[index])) return undefined;
  return copyAIMessage(message, { tool_calls: reordered });
}

/**
 * The clarification a run ended on: the last message is a successful `ask_clarification` ToolMessage.
 * `null` when the run ended any other way.
 */
export function clarificationFromMessages(messages: readonly BaseMessage[]): PendingClarification | null {
  const last = messages.at(-1);
  if (!last || !ToolMessage.isInstance(last) || last.name !== ASK_CLARIFICATION_TOOL_NAME || last.status === "error")
    return null;
  const parsed = AskClarificationArgs.safeParse(last.additional_kwargs?.clarification);
  const text = last.text;
  if (!parsed.success)
    return { question: text, clarification_type: "missing_info", text, tool_call_id: last.tool_call_id };
  return { ...parsed.data, text, tool_call_id: last.tool_call_id };
}

/**
 * The id of the question's ToolMessage and of its human-input request: `clarification:<tool call id>`
 * (a hash of the question when the call has no id). A retried tool call then replaces the message
 * instead of adding a second copy of the question.
 */
export function clarificationRequestId(toolCallId: string, text: string): string {
  return `clarification:${toolCallId || createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
}

/**
 * The question in the shape DeerFlow's UI renders (`artifact.human_input`): version 1 for free text or
 * a choice among options with an "other" answer; version 2 for a form (`input_mode: "form"` with
 * `fields`), so a client that knows only version 1 falls back to the message text.
 */
export function humanInputRequest(args: AskClarificationArgs, toolCallId: string, requestId = toolCallId) {
  const options = args.options ?? [];
  const fields = args.fields ?? [];
  const inputMode = fields.length > 0 ? "form" : options.length > 0 ? "choice_with_other" : "free_text";
  return {
    version: inputMode === "form" ? 2 : 1,
    kind: "human_input_request",
    source: "ask_clarification",
    request_id: requestId,
    tool_call_id: toolCallId,
    clarification_type: args.clarification_type,
    question: args.question,
    input_mode: inputMode,
    ...(args.context ? { context: args.context } : {}),
    ...(inputMode === "form" ? { fields } : {}),
    ...(inputMode === "choice_with_other"
      ? { options: options.map((label, index) => ({ id: `option-${index + 1}`, label, value: label })) }
      : {}),
  };
}

/** What the model reads instead of asking, when clarification is disabled for the run. */
export const CLARIFICATION_DISABLED_NOTE =
  "Clarification is disabled for this run: nobody is there to answer a question. Do not ask; proceed on your best assumption, carry out the task, and state the assumptions you made in your final answer.";

/** Options of {@link clarificationMiddleware}. */
export interface ClarificationOptions {
  /**
   * The run's `disable_clarification` flag: `ask_clarification` is not offered to the model, the
   * system prompt tells it to proceed on its best assumption, and a call made anyway (a model that
   * remembers the tool from history) is answered with that note instead of ending the run.
   */
  disabled?: boolean;
  logger?: Logger;
}

/**
 * Intercepts `ask_clarification` (`wrapToolCall`) and keeps its result last (`afterModel`). Goes last
 * in the chain; the agent must also have `askClarificationTool` among its tools.
 *
 * @example
 * createAgent({ model, tools: [askClarificationTool, ...tools], middleware: [...others, clarificationMiddleware()] });
 */
export function clarificationMiddleware(options: ClarificationOptions = {}) {
  return createMiddleware({
    name: "clarification",
    wrapModelCall: (request, handler) => {
      if (!options.disabled) return handler(request);
      const tools = request.tools.filter((tool) => (tool as { name?: string }).name !== ASK_CLARIFICATION_TOOL_NAME);
      return handler({
        ...request,
        tools,
        systemMessage: request.systemMessage.concat(`\n\n${CLARIFICATION_DISABLED_NOTE}`),
      });
    },
    afterModel: (state) => {
      const last = state.messages.at(-1);
      if (!last || !AIMessage.isInstance(last)) return undefined;
      const reordered = moveClarificationLast(last);
      return reordered ? { messages: [reordered] } : undefined;
    },
    wrapToolCall: async (request, handler) => {
      const call = request.toolCall;
      if (call.name !== ASK_CLARIFICATION_TOOL_NAME) return handler(request);
      const toolCallId = call.id ?? "";
      if (options.disabled) {
        options.logger?.info("a question was not asked (disable_clarification); the model proceeds on its assumptions");
        // No `name`: langchain ends the run after a result named for a returnDirect tool, and this one must not.
        return new ToolMessage({ tool_call_id: toolCallId, content: CLARIFICATION_DISABLED_NOTE });
      }
      const parsed = parseClarificationArgs(call.args);
      if (!parsed.success) {
        const problems = parsed.error.issues
          .map((issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`)
          .join("; ");
        return new ToolMessage({
          name: ASK_CLARIFICATION_TOOL_NAME,
          tool_call_id: toolCallId,
          status: "error",
          content: `Error: ask_clarification was called with invalid arguments (${problems}). Call it again with a question and a clarification_type.`,
        });
      }
      options.logger?.info(`asked the user a question (${parsed.data.clarification_type})`);
      const text = formatClarification(parsed.data);
      const id = clarificationRequestId(toolCallId, text);
      return new ToolMessage({
        id,
        name: ASK_CLARIFICATION_TOOL_NAME,
        tool_call_id: toolCallId,
        content: text,
        additional_kwargs: { clarification: parsed.data },
        artifact: { human_input: humanInputRequest(parsed.data, toolCallId, id) },
      });
    },
  });
}
