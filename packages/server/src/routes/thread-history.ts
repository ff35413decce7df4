/**
 * The durable message page and token usage of a thread (contract §B.3/§B.4, tier 0).
 *
 * `messages/page` is what DeerFlow's UI merges with the live state so that messages summarization
 * removed are still shown: it is backed by the harness's history (the compaction archive followed by
 * the live messages), paged backwards with `before_seq`. Each row names the run that wrote it, because
 * the UI tells apart two copies of one message by run id. `token-usage` reads the `token_usage` and
 * `run_token_usage` the token-usage middleware keeps in thread state: the thread's total, and per run
 * the value at the run's last checkpoint.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import type { RegisterRoutes } from "../context.js";
import { callerOf } from "../auth/caller.js";
import { parseQuery, pathId } from "../http/validate.js";
import { toWire } from "../runs/serialize.js";
import { requireThread } from "../runs/threads.js";

const PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  before_seq: z.coerce.number().int().min(1).optional(),
});

interface Usage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
}

const ZERO: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
/** Checkpoints walked to attribute usage to runs (newest first). */
const MAX_CHECKPOINTS_WALKED = 2000;

/**
 * The run of each message, in order. A run begins at the user message it was started with, which the
 * harness stamps with `additional_kwargs.run_id` (and `timestamp`); every later message up to the next
 * stamped one was written by that run. Messages before the first stamp (written through the state
 * endpoint, not by a run) have none.
 *
 * @example
 * runsOf([human(run "r1"), ai, tool, human(run "r2"), ai]); // ["r1", "r1", "r1", "r2", "r2"]
 */
function runsOf(messages: readonly BaseMessage[]): (string | null)[] {
  let current: string | null = null;
  return messages.map((message) => {
    const stamped = message.additional_kwargs?.run_id;
    if (typeof stamped === "string" && stamped !== "") current = stamped;
    return current;
  });
}

function usageOf(value: unknown): Usage {
  const usage = value as Partial<Usage> | undefined;
  const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  return {
    input_tokens: n(usage?.input_tokens),
    output_tokens: n(usage?.output_tokens),
    total_tokens: n(usage?.total_tokens),
  };
}

/** Registers `messages/page` and `token-usage`. */
export const registerThreadHistoryRoutes: RegisterRoutes = (api, context) => {
  api.get("/threads/:thread_id/messages/page", async (c) => {
    const threadId = pathId(c, "thread_id");
    const query = parseQuery(c, PageQuery);
    await requireThread(context, callerOf(c), threadId);
    const messages = (await context.harness.history(threadId)).filter(
      (entry): entry is { kind: "message"; seq: number; message: BaseMessage } => entry.kind === "message",
    );
    const runIds = runsOf(messages.map((entry) => entry.message));
    const rows = messages.map((entry, index) => ({ ...entry, runId: runIds[index]! }));
    const before = query.before_seq === undefined ? rows : rows.filter((entry) => entry.seq < query.before_seq!);
    const page = before.slice(Math.max(before.length - query.limit, 0));
    const hasMore = before.length > page.length;
    return c.json({
      data: page.map((entry) => {
        const stamp = entry.message.additional_kwargs?.timestamp;
        return {
          run_id: entry.runId,
          seq: entry.seq,
          content: toWire(entry.message),
          metadata: { caller: "lead_agent" },
          created_at: typeof stamp === "string" ? stamp : null,
        };
      }),
      has_more: hasMore,
      next_before_seq: hasMore ? page[0]!.seq : null,
    });
  });

  api.get("/threads/:thread_id/token-usage", async (c) => {
    const threadId = pathId(c, "thread_id");
    await requireThread(context, callerOf(c), threadId);
    const graph = context.harness.agent().graph;
    const state = await graph.getState({ configurable: { thread_id: threadId } });
    const values = (state.values ?? {}) as { token_usage?: unknown; messages?: BaseMessage[] };
    const total = usageOf(values.token_usage);

    // One thread runs one run at a time, so a checkpoint written between a run's creation and its
    // last update belongs to that run; the newest such checkpoint holds the run's final run_token_usage.
    const runs = await context.runs.list(threadId, { limit: 1000, offset: 0 });
    const windows = runs.map((run) => ({
      runId: run.run_id,
      from: Date.parse(run.created_at),
      to: Date.parse(run.updated_at),
    }));
    const byRun = new Map<string, Usage>();
    let walked = 0;
    for await (const snapshot of graph.getStateHistory({ configurable: { thread_id: threadId } })) {
      const at = snapshot.createdAt ? Date.parse(snapshot.createdAt) : NaN;
      const owner = windows.find((window) => at >= window.from && at <= window.to);
      if (owner && !byRun.has(owner.runId)) {
        const usage = (snapshot.values as { run_token_usage?: unknown } | undefined)?.run_token_usage;
        if (usage) byRun.set(owner.runId, usageOf(usage));
      }
      if ((walked += 1) >= MAX_CHECKPOINTS_WALKED || byRun.size === windows.length) break;
    }
    const byModel: Record<string, Usage & { runs: number }> = {};
    for (const run of runs) {
      const usage = byRun.get(run.run_id);
      if (!usage) continue;
      const model =
        (run.kwargs.run_options.model_name as string | undefined) ?? context.harness.defaultModel.entry.name;
      const entry = (byModel[model] ??= { ...ZERO, runs: 0 });
      entry.input_tokens += usage.input_tokens;
      entry.output_tokens += usage.output_tokens;
      entry.total_tokens += usage.total_tokens;
      entry.runs += 1;
    }

    // Context usage: what the last model call was sent, against the model's input window when known.
    const lastAi = [...(values.messages ?? [])].reverse().find((message) => message.getType?.() === "ai") as
      | { usage_metadata?: { input_tokens?: number } }
      | undefined;
    const tokenCount = lastAi?.usage_metadata?.input_tokens ?? 0;
    const maxContext = context.harness.defaultModel.entry.max_input_tokens ?? null;
    return c.json({
      thread_id: threadId,
      total_tokens: total.total_tokens,
      total_input_tokens: total.input_tokens,
      total_output_tokens: total.output_tokens,
      total_runs: runs.length,
      by_model: byModel,
      by_caller: { lead_agent: total },
      by_run: [...byRun].map(([run_id, usage]) => ({ run_id, ...usage })),
      context_usage: {
        token_count: tokenCount,
        max_context_tokens: maxContext,
        percentage: maxContext ? Math.round((tokenCount / maxContext) * 1000) / 10 : null,
      },
    });
  });
};
