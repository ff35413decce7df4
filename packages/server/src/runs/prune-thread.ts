/**
 * What `POST /threads/prune`, thread TTLs and `PATCH /threads/{id}/state` do to a thread's stored state:
 * prune it (`delete`: the whole thread as `DELETE /threads/{id}` does; `keep_latest`: every checkpoint
 * but the head, by the harness's retention pruner), and merge metadata into its head checkpoint.
 */
import type { ServerContext } from "../context.js";
import { HttpError, notFound } from "../http/errors.js";
import { deleteThread } from "./threads.js";
import type { TtlStrategy } from "./thread-ttl.js";

/** Prunes one thread; false when there was nothing to prune (a thread already gone, or a run holds it). */
export async function pruneThread(context: ServerContext, threadId: string, strategy: TtlStrategy): Promise<boolean> {
  if (strategy === "delete") return deleteThread(context, threadId);
  // A running run needs its own steps to resume after a crash; a later prune catches up.
  if ((await context.runs.active(threadId)).length > 0) return false;
  const pruner = context.harness.setup.pruner;
  if (!pruner) return false;
  await pruner.pruneThread(threadId, "latest");
  return true;
}

/** Merges `metadata` into the metadata of the thread's head checkpoint. */
export async function patchCheckpointMetadata(
  context: ServerContext,
  threadId: string,
  metadata: Record<string, unknown>,
): Promise<void> {
  const saver = context.harness.setup.checkpointer;
  if (!saver) throw new HttpError(409, "This server keeps no checkpoints it can patch (a checkpointer given in code).");
  const tuple = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
  if (!tuple) throw notFound(`A checkpoint of thread ${threadId}`);
  const parent = tuple.parentConfig?.configurable?.checkpoint_id;
  await saver.put(
    { configurable: { thread_id: threadId, checkpoint_ns: "", ...(parent ? { checkpoint_id: parent } : {}) } },
    tuple.checkpoint,
    { ...tuple.metadata, ...metadata } as typeof tuple.metadata & object,
    {},
  );
}

/**
 * Applies the thread TTLs that ran out; called by the server's periodic sweep. A failure is logged and
 * the rest go on (the TTL row is gone: the thread is not swept again unless a TTL is set anew).
 */
export async function sweepExpiredThreads(context: ServerContext): Promise<number> {
  let swept = 0;
  for (const expired of await context.threadTtl.takeExpired()) {
    try {
      if (await pruneThread(context, expired.thread_id, expired.strategy)) swept += 1;
    } catch (error) {
      context.options.log(`thread ttl: ${expired.thread_id}: ${(error as Error).message}`);
    }
  }
  return swept;
}
