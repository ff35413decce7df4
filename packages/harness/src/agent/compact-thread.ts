/**
 * Manual compaction (`/compact` in `deerflow chat` and the web composer, `POST /api/threads/{id}/compact`):
 * summarize a thread's older messages now, between runs, with the same compaction the summarization
 * middleware runs before a model call (its models, archive and `before_summarization` hooks). The result
 * is a new checkpoint holding the summary and without the compacted messages; the full history stays
 * in the archive. The answer has the shape of DeerFlow's `ThreadCompactResponse`.
 */
import type { ContextSize } from "../config/schema.js";
import { HarnessError } from "../errors.js";
import type { CompactionState, Compactor } from "../middleware/summarization/index.js";

/** Options of a manual compaction. */
export interface CompactThreadOptions {
  /** Compact even when no summarization trigger is met (default true, as DeerFlow's route). */
  force?: boolean;
  /** The keep policy of this compaction only; default `summarization.keep`. */
  keep?: ContextSize;
}

/** What a manual compaction did, as DeerFlow's gateway answers it. */
export interface ThreadCompactResult {
  thread_id: string;
  compacted: boolean;
  /** Why nothing was compacted (`not_needed`: no trigger met without force; `not_enough_messages`), or null. */
  reason: string | null;
  removed_message_count: number;
  preserved_message_count: number;
  summary_updated: boolean;
  /** The checkpoint written, or null when nothing was compacted. */
  checkpoint_id: string | null;
  /** The thread's size before compaction, as the trigger counts it (durable block and prompt included). */
  total_tokens: number;
}

/** The part of a compiled lead graph manual compaction uses. */
export interface CompactableAgent {
  graph: {
    getState(config: { configurable: { thread_id: string } }): Promise<{
      values: unknown;
      config?: { configurable?: Record<string, unknown> };
    }>;
    updateState(
      config: { configurable: Record<string, unknown> },
      values: Record<string, unknown>,
      asNode?: string,
    ): Promise<{ configurable?: Record<string, unknown> }>;
  };
  deerflow: { compact?: Compactor };
}

/**
 * Compacts `threadId` now. Throws `HarnessError` `compaction_unavailable` when summarization is off,
 * `thread_invalid` when the thread has no saved state, and `compaction_failed` when no summary could be
 * made or the archive could not be written (nothing is changed then).
 *
 * @example
 * const result = await compactThread(harness.agent(), "t1", { keep: { type: "messages", value: 4 } });
 * if (!result.compacted) console.log(`nothing to compact (${result.reason})`);
 */
export async function compactThread(
  agent: CompactableAgent,
  threadId: string,
  options: CompactThreadOptions = {},
): Promise<ThreadCompactResult> {
  const compact = agent.deerflow.compact;
  if (!compact) {
    throw new HarnessError(
      "compaction_unavailable",
      "Context compaction is disabled. Set summarization.enabled: true in config.yaml to use /compact.",
    );
  }
  const head = await agent.graph.getState({ configurable: { thread_id: threadId } });
  if (!head.config?.configurable?.checkpoint_id) {
    throw new HarnessError(
      "thread_invalid",
      `Thread ${threadId} has no saved conversation to compact. Check the thread id (\`deerflow threads list\`).`,
    );
  }
  const values = (head.values ?? {}) as Partial<CompactionState>;
  const outcome = await compact(
    { ...values, messages: values.messages ?? [] },
    { threadId, force: options.force ?? true, keep: options.keep },
  );
  if (!outcome.compacted) {
    if (outcome.reason === "summary_failed" || outcome.reason === "archive_failed") {
      throw new HarnessError(
        "compaction_failed",
        `Thread ${threadId} could not be compacted: ${outcome.reason === "summary_failed" ? "no summary could be made" : "the history archive could not be written"} (${outcome.detail ?? "no detail"}). Nothing was changed; check the summary model and try again.`,
      );
    }
    return result(threadId, { compacted: false, reason: outcome.reason, total_tokens: outcome.totalTokens });
  }
  const written = await updateAtRest(agent, threadId, outcome.update);
  return result(threadId, {
    compacted: true,
    removed_message_count: outcome.removed.length,
    preserved_message_count: outcome.preserved.length,
    summary_updated: true,
    checkpoint_id: (written.configurable?.checkpoint_id as string | undefined) ?? null,
    total_tokens: outcome.totalTokens,
  });
}

function result(threadId: string, fields: Partial<ThreadCompactResult>): ThreadCompactResult {
  return {
    thread_id: threadId,
    compacted: false,
    reason: null,
    removed_message_count: 0,
    preserved_message_count: 0,
    summary_updated: false,
    checkpoint_id: null,
    total_tokens: 0,
    ...fields,
  };
}

/**
 * Writes `values` as the thread's next checkpoint. LangGraph credits an update to the node that wrote
 * last; a run with other options (plan mode) may have used a graph whose composed-chain node this one
 * lacks, so the update is then credited to the model node, as the server's state route does.
 */
async function updateAtRest(agent: CompactableAgent, threadId: string, values: Record<string, unknown>) {
  const target = { configurable: { thread_id: threadId } };
  try {
    return await agent.graph.updateState(target, values);
  } catch (error) {
    if (!/Node "deerflow-chain\.[a-z_]+" does not exist/.test((error as Error).message)) throw error;
    return agent.graph.updateState(target, values, "model_request");
  }
}
