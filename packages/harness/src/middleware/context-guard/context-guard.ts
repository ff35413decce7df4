/**
 * Keeps a thread answerable when its requests outgrow the model's window.
 *
 * Every request has its tool results bounded (tool-result-budget.ts). When the provider still answers
 * that the request is too long (OpenAI's and vLLM's "maximum context length", Anthropic's "prompt is too
 * long", Ollama's "context size" ...), the request is compacted harder (request-compaction.ts) and sent
 * once more; the thread remembers, for the rest of this process, to start its requests compacted. If
 * even that does not fit, the run stops with one line saying so and what to do. The checkpoint always
 * keeps the full messages: only requests are cut.
 */
import { createMiddleware } from "langchain";
import { ModelError } from "../../errors.js";
import { contextLimitFromError, isContextLengthError } from "../../model/provider-errors.js";
import { compactRequest, requestChars } from "./request-compaction.js";
import { type ToolResultLimits, boundToolResults } from "./tool-result-budget.js";
import type { Logger } from "../../logger.js";

/** Options of {@link contextGuardMiddleware}. */
export interface ContextGuardOptions extends ToolResultLimits {
  /** The model's window in tokens when known (`max_input_tokens`); else it is read from the provider's error. */
  maxInputTokens?: number;
  /** Names the model in the final error, e.g. `Model "qwen" at http://localhost:8000/v1`. */
  modelLabel: string;
  /** Receives a line when a request had to be compacted harder. Default: nothing. */
  onWarning?: (message: string) => void;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/** Characters per token assumed when turning a window into a character budget (low, so it errs on the safe side). */
const CHARS_PER_TOKEN = 3;

/**
 * Builds the context-guard middleware.
 *
 * @example
 * contextGuardMiddleware({ perResultChars: 20_000, perRequestChars: 100_000, modelLabel: 'Model "gpt-4o"' });
 */
export function contextGuardMiddleware(options: ContextGuardOptions) {
  // Threads whose requests needed the harder compaction, with the character budget that worked.
  const tight = new Map<string, number>();

  return createMiddleware({
    name: "context-guard",
    wrapModelCall: async (request, handler) => {
      const threadId = String(
        (request.runtime as { configurable?: { thread_id?: unknown } } | undefined)?.configurable?.thread_id ?? "",
      );
      const systemChars = request.systemMessage?.text.length ?? 0;
      const { messages: bounded, cut } = boundToolResults(request.messages, options);
      if (cut > 0) options.logger?.debug(`cut ${cut} tool result(s) in the request to fit the tool-result budgets`);
      const remembered = threadId ? tight.get(threadId) : undefined;
      const first = remembered === undefined ? bounded : compactRequest(bounded, remembered, options).messages;
      try {
        return await handler({ ...request, messages: first });
      } catch (error) {
        if (!isContextLengthError(error)) throw error;
        const sentChars = requestChars(first) + systemChars;
        const target = targetChars(error, sentChars, options.maxInputTokens) - systemChars;
        const compacted = compactRequest(bounded, Math.max(0, target), options);
        options.logger?.info(
          `the request did not fit the context window; compacting harder (${compacted.dropped} older message(s) left out)`,
        );
        options.onWarning?.(
          `${options.modelLabel}: the request did not fit the context window; sending it again with tool output cut` +
            (compacted.dropped > 0
              ? ` and ${compacted.dropped} older message(s) left out (they stay in the thread).`
              : "."),
        );
        try {
          const answer = await handler({ ...request, messages: compacted.messages });
          if (threadId) tight.set(threadId, Math.max(0, target));
          return answer;
        } catch (retryError) {
          if (!isContextLengthError(retryError)) throw retryError;
          options.logger?.warn("the thread cannot fit the context window even after compacting harder");
          throw new ModelError(
            `This thread no longer fits the context window of ${options.modelLabel}, even with older messages and tool output left out of the request. ` +
              "Start a new thread (run without --thread), or choose a model with a larger window (--model); nothing saved was lost.",
            { cause: retryError },
          );
        }
      }
    },
  });
}

/** How many characters the next attempt may send: 80% of what the window allows, judged from the error. */
export function targetChars(error: unknown, sentChars: number, maxInputTokens: number | undefined): number {
  const { window, requested } = contextLimitFromError(error);
  if (window && requested && requested > window) return Math.floor(sentChars * (window / requested) * 0.8);
  const known = window ?? maxInputTokens;
  if (known) return Math.min(Math.floor(sentChars * 0.8), known * CHARS_PER_TOKEN * 0.8);
  return Math.floor(sentChars / 2);
}
