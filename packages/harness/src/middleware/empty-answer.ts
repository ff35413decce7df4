/**
 * An empty final answer: no text and no tool calls. Some models do this after a long tool run or when
 * confused; taken as the answer, the user sees nothing, and an empty assistant message in the thread
 * makes strict OpenAI-compatible providers reject every later request of it ("assistant message must
 * not be empty").
 *
 * The call is tried once more with a hidden nudge at the end of the request (that request only); if
 * the answer is still empty it is replaced by a message saying so and what to do. It all happens inside
 * one model call, so nothing hidden reaches the checkpoint. The answer carries the usage of both calls,
 * so token accounting counts the empty one too.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import type { Logger } from "../logger.js";
import { copyAIMessage } from "../messages/ai-message.js";
import { sumUsage } from "./finish-reason.js";
import { stopWithNote } from "./stop-run.js";

/** True for an answer with no visible text, no tool calls and no (invalid) tool-call attempts. */
export function isEmptyAnswer(message: AIMessage): boolean {
  if ((message.tool_calls?.length ?? 0) > 0 || (message.invalid_tool_calls?.length ?? 0) > 0) return false;
  return message.text.trim() === "";
}

/** The hidden request-only message of the second try. */
export const EMPTY_ANSWER_PROMPT =
  "<system_reminder>\nYour previous reply was empty. Give the user a visible answer now, based on the conversation and any tool results above. Call a tool only if it is strictly needed.\n</system_reminder>";

/** What the user reads when the second try is empty too. */
export function emptyAnswerNote(modelName: string): string {
  return `[Model "${modelName}" returned an empty answer twice (no text and no tool calls). Send your message again, rephrase it, or choose another model.]`;
}

/** Options of {@link emptyAnswerMiddleware}. */
export interface EmptyAnswerOptions {
  /** Names the model in the replacement message. */
  modelName: string;
  /** Receives a line when an empty answer is replaced (the CLI log). Default: nothing. */
  onWarning?: (message: string) => void;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/**
 * Retries an empty answer once with a nudge, then replaces it with a clear message.
 *
 * @example
 * createAgent({ model, middleware: [emptyAnswerMiddleware({ modelName: "qwen3" })] });
 */
export function emptyAnswerMiddleware(options: EmptyAnswerOptions) {
  return createMiddleware({
    name: "empty-answer",
    wrapModelCall: async (request, handler) => {
      const first = await handler(request);
      if (!AIMessage.isInstance(first) || !isEmptyAnswer(first)) return first;
      options.logger?.info(`model "${options.modelName}" gave an empty answer; asking once more`);
      const nudge = new HumanMessage({ content: EMPTY_ANSWER_PROMPT, additional_kwargs: { hide_from_ui: true } });
      const retried = await handler({ ...request, messages: [...request.messages, nudge] });
      if (!AIMessage.isInstance(retried)) return retried;
      const second = copyAIMessage(retried, { usage_metadata: sumUsage(first.usage_metadata, retried.usage_metadata) });
      if (!isEmptyAnswer(second)) return second;
      options.logger?.warn(`model "${options.modelName}" gave an empty answer twice; replaced it with a message`);
      options.onWarning?.(`empty-answer: model "${options.modelName}" gave an empty answer twice.`);
      return stopWithNote(second, emptyAnswerNote(options.modelName), "empty_answer");
    },
  });
}
