/**
 * Calls the summarizer: candidate models in order, each with a timeout, hidden from the user's stream.
 *
 * The call runs inside the agent's graph, so LangGraph's `messages` stream would forward its tokens to
 * the user as if the agent were answering (deepagentsjs#629). LangGraph skips chat-model runs tagged
 * `nostream` / `langsmith:nostream` (StreamMessagesHandler.handleChatModelStart), so the call carries
 * both tags. A model that errors, times out, or answers blank text passes to the next candidate.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";

/** Tags put on the summarizer call; `nostream` keeps its tokens out of the `messages` stream. */
export const SUMMARIZER_TAGS = ["nostream", "langsmith:nostream", "middleware:summarization"];

/** Default time a candidate may take before the next one is tried. */
export const DEFAULT_SUMMARY_TIMEOUT_MS = 120_000;

/** The outcome: a summary, or why every candidate failed. */
export type SummaryOutcome = { summary: string } | { failures: string[] };

/** Removes reasoning blocks some models put in their text (`<think>…</think>`) and trims. */
export function cleanSummaryText(text: string): string {
  return text.replace(/<think>[\s\S]*?<\/think>/gi, "").trim();
}

async function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, timeoutMs: number): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([work(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks each candidate in turn for a summary of `prompt`; returns the first non-blank answer.
 *
 * @example
 * const outcome = await generateSummary([summaryModel, runModel], prompt, { timeoutMs: 60_000 });
 * if ("summary" in outcome) use(outcome.summary);
 */
export async function generateSummary(
  models: readonly BaseChatModel[],
  prompt: string,
  options: { timeoutMs?: number } = {},
): Promise<SummaryOutcome> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS;
  const failures: string[] = [];
  for (const [index, model] of [...new Set(models)].entries()) {
    const label = `candidate ${index + 1} (${model.getName()})`;
    try {
      const reply = await withTimeout(
        (signal) =>
          model.invoke([new HumanMessage(prompt)], {
            tags: SUMMARIZER_TAGS,
            metadata: { lc_source: "summarization" },
            signal,
          }),
        timeoutMs,
      );
      const summary = cleanSummaryText(reply.text);
      if (summary) return { summary };
      failures.push(`${label}: blank summary`);
    } catch (error) {
      failures.push(`${label}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { failures };
}
