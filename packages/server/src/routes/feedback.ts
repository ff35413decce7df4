/**
 * Thumbs up or down on a run's answer (DeerFlow's feedback router), under `/threads/{id}/runs/{run_id}`:
 *
 * - `PUT .../feedback {rating: 1|-1, comment?}`: the caller's feedback on the run (given again: replaced).
 *   DeerFlow's frontend sends this, and `DELETE .../feedback` to take it back (a second click).
 * - `POST .../feedback {rating, comment?, message_id?}`: the same, optionally about one message.
 * - `GET .../feedback` (the caller's, as a list), `GET .../feedback/stats` (`{run_id, total, positive,
 *   negative}`), `DELETE .../feedback/{feedback_id}`.
 *
 * The thread guard answers 404 for someone else's thread; the run must be on that thread (404). Each
 * person sees and changes only their own feedback.
 */
import { z } from "zod";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { callerOf } from "../auth/caller.js";
import { notFound } from "../http/errors.js";
import { parseBody, pathId } from "../http/validate.js";
import { requireThread } from "../runs/threads.js";
import type { Caller } from "../auth/caller.js";
import type { Context } from "hono";

const Rating = z.union([z.literal(1), z.literal(-1)], { error: "must be 1 (thumbs up) or -1 (thumbs down)" });
const Comment = z.string().max(4000, "must be at most 4,000 characters").nullish();
const UpsertSchema = z.strictObject({ rating: Rating, comment: Comment });
const CreateSchema = z.strictObject({
  rating: Rating,
  comment: Comment,
  message_id: z.string().min(1).max(200).nullish(),
});

/** The thread and run of the path, after checking the run is on that thread of the caller. */
async function runOf(context: ServerContext, c: Context): Promise<{ caller: Caller; threadId: string; runId: string }> {
  const caller = callerOf(c);
  const threadId = pathId(c, "thread_id");
  const runId = c.req.param("run_id")!;
  await requireThread(context, caller, threadId);
  const run = await context.runs.get(runId);
  if (!run || run.thread_id !== threadId) throw notFound(`Run ${runId} in thread ${threadId}`);
  return { caller, threadId, runId };
}

/** Registers the feedback routes. */
export const registerFeedbackRoutes: RegisterRoutes = (api, context) => {
  const base = "/threads/:thread_id/runs/:run_id/feedback";

  api.put(base, async (c) => {
    const body = await parseBody(c, UpsertSchema);
    const { caller, threadId, runId } = await runOf(context, c);
    const feedback = await context.feedback.upsert(caller.userId, {
      thread_id: threadId,
      run_id: runId,
      rating: body.rating,
      comment: body.comment?.trim() || null,
      message_id: null,
    });
    return c.json(feedback);
  });

  api.post(base, async (c) => {
    const body = await parseBody(c, CreateSchema);
    const { caller, threadId, runId } = await runOf(context, c);
    const feedback = await context.feedback.upsert(caller.userId, {
      thread_id: threadId,
      run_id: runId,
      rating: body.rating,
      comment: body.comment?.trim() || null,
      message_id: body.message_id ?? null,
    });
    return c.json(feedback);
  });

  api.get(base, async (c) => {
    const { caller, threadId, runId } = await runOf(context, c);
    return c.json(await context.feedback.list(caller.userId, threadId, runId));
  });

  api.get(`${base}/stats`, async (c) => {
    const { caller, threadId, runId } = await runOf(context, c);
    const all = await context.feedback.list(caller.userId, threadId, runId);
    const positive = all.filter((feedback) => feedback.rating === 1).length;
    return c.json({ run_id: runId, total: all.length, positive, negative: all.length - positive });
  });

  api.delete(base, async (c) => {
    const { caller, threadId, runId } = await runOf(context, c);
    if (!(await context.feedback.deleteForRun(caller.userId, threadId, runId)))
      throw notFound(`Feedback on run ${runId}`);
    return c.json({ success: true });
  });

  api.delete(`${base}/:feedback_id`, async (c) => {
    const { caller, threadId, runId } = await runOf(context, c);
    const feedbackId = c.req.param("feedback_id");
    if (!(await context.feedback.delete(caller.userId, threadId, runId, feedbackId)))
      throw notFound(`Feedback ${feedbackId} on run ${runId}`);
    return c.json({ success: true });
  });
};
