/**
 * `POST /api/threads/{thread_id}/compact`: DeerFlow's frontend sends `/compact` here to summarize a
 * thread's older messages now instead of waiting for a trigger. The body and the answer are DeerFlow's
 * (`ThreadCompactRequest` / `ThreadCompactResponse`); the work is `harness.compact`, run with the
 * caller's memory and the model the thread's runs use (`model_name`, `agent_name`).
 */
import { type CompactThreadOptions, ContextSize, isHarnessError } from "@deerflow/harness";
import { z } from "zod";
import type { RegisterRoutes } from "../context.js";
import { callerOf } from "../auth/caller.js";
import { HttpError } from "../http/errors.js";
import { parseBody, pathId } from "../http/validate.js";
import { requireThread } from "../runs/threads.js";

const CompactSchema = z.strictObject({
  force: z.boolean().default(true),
  keep: ContextSize.nullish(),
  agent_name: z.string().max(128).nullish(),
  model_name: z.string().max(128).nullish(),
});

/** Registers the compact route. */
export const registerCompactRoutes: RegisterRoutes = (api, context) => {
  api.post("/threads/:thread_id/compact", async (c) => {
    const threadId = pathId(c, "thread_id");
    const body = await parseBody(c, CompactSchema);
    const caller = callerOf(c);
    await requireThread(context, caller, threadId);
    if ((await context.runs.active(threadId)).length > 0)
      throw new HttpError(409, `Thread ${threadId} has a run in progress. Compact it after the run finishes.`);
    const options: CompactThreadOptions & { run: Record<string, string | undefined> } = {
      force: body.force,
      keep: body.keep ?? undefined,
      run: {
        model_name: body.model_name ?? undefined,
        agent_name: body.agent_name ?? undefined,
        user_id: caller.userId ?? undefined,
      },
    };
    // The CLI's cross-process lease, as around a run: a `deerflow run --thread` elsewhere is not written under.
    const release = await context.options.threadLease?.(threadId, c.req.raw.signal);
    try {
      return c.json(await context.harness.compact(threadId, options));
    } catch (error) {
      if (!isHarnessError(error)) throw error;
      if (error.code === "compaction_unavailable") throw new HttpError(409, error.message);
      if (error.code === "compaction_failed") throw new HttpError(500, error.message);
      if (error.code === "thread_invalid") throw new HttpError(404, error.message);
      throw error;
    } finally {
      release?.();
    }
  });
};
