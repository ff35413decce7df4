/**
 * Threads: create (with `if_exists`), search (metadata containment, status, sort, select, pagination
 * headers), count, get, patch, delete (checkpoints, runs, archive and files), state get/update/at a
 * checkpoint, and history with `checkpoint`/`parent_checkpoint` objects.
 */
import { rm } from "node:fs/promises";
import { GoalState } from "@deerflow/harness";
import { z } from "zod";
import type { RegisterRoutes } from "../context.js";
import { type Caller, callerOf, owns } from "../auth/caller.js";
import { reservationAllows } from "../auth/thread-guard.js";
import { HttpError, notFound } from "../http/errors.js";
import { Id, parseBody, pathId } from "../http/validate.js";
import { uuid7 } from "../runs/ids.js";
import { emptyThreadState, threadState } from "../runs/state.js";
import { deleteThread, findThread, implicitCreationFile, requireThread, visibleThread } from "../runs/threads.js";
import { patchCheckpointMetadata, pruneThread } from "../runs/prune-thread.js";
import { updateThreadValues } from "../runs/update-state.js";
import { type ThreadRecord, ThreadStatus } from "../runs/types.js";

const Metadata = z.record(z.string(), z.unknown());

/** LangGraph's thread TTL: minutes, or `{ttl, strategy}` (runs/thread-ttl.ts). */
const Ttl = z.union(
  [
    z.number().positive().max(5_256_000),
    z.strictObject({
      ttl: z.number().positive("must be a positive number of minutes").max(5_256_000),
      strategy: z.enum(["delete", "keep_latest"]).default("delete"),
    }),
  ],
  { error: 'give minutes, or {ttl: minutes, strategy: "delete" | "keep_latest"}' },
);

const CreateSchema = z.strictObject({
  thread_id: Id.nullish(),
  metadata: Metadata.nullish(),
  if_exists: z.enum(["raise", "do_nothing"]).nullish(),
  ttl: Ttl.nullish(),
  supersteps: z
    .array(z.unknown())
    .max(0, "supersteps are not supported yet; create the thread, then POST /threads/{id}/state")
    .nullish(),
  graph_id: z.string().nullish(),
});

const SearchSchema = z.strictObject({
  ids: z.array(Id).nullish(),
  metadata: Metadata.nullish(),
  values: Metadata.nullish(),
  status: ThreadStatus.nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  sort_by: z.enum(["thread_id", "status", "created_at", "updated_at", "state_updated_at"]).default("created_at"),
  sort_order: z.enum(["asc", "desc"]).default("desc"),
  select: z.array(z.string()).nullish(),
  extract: z.unknown().optional(),
});

const CountSchema = z.strictObject({
  metadata: Metadata.nullish(),
  values: Metadata.nullish(),
  status: ThreadStatus.nullish(),
});
const PatchSchema = z.strictObject({ metadata: Metadata.nullish(), ttl: Ttl.nullish() });
const PatchStateSchema = z.strictObject({ metadata: Metadata });
const PruneSchema = z.strictObject({
  thread_ids: z.array(Id).min(1, "name at least one thread").max(1000),
  strategy: z.enum(["delete", "keep_latest"]).default("delete"),
});

const CheckpointRef = z.looseObject({
  checkpoint_id: z.string().nullish(),
  checkpoint_ns: z.string().nullish(),
  thread_id: z.string().nullish(),
});
const UpdateStateSchema = z.strictObject({
  values: z.unknown(),
  checkpoint: CheckpointRef.nullish(),
  checkpoint_id: z.string().nullish(),
  as_node: z.string().nullish(),
});
const HistorySchema = z.strictObject({
  limit: z.number().int().min(1).max(1000).default(10),
  before: z
    .union([
      z.string(),
      z.looseObject({ configurable: z.looseObject({ checkpoint_id: z.string().optional() }).optional() }),
    ])
    .nullish(),
  metadata: Metadata.nullish(),
  checkpoint: CheckpointRef.nullish(),
});
const StateAtSchema = z.strictObject({ checkpoint: CheckpointRef, subgraphs: z.boolean().nullish() });

/** A thread as the API's `Thread`: every field but the owner, then `config` (always `{}`, nothing is stored for it). */
function thread(record: ThreadRecord): Record<string, unknown> {
  const { owner: _owner, ...shown } = record;
  return { ...shown, config: {} };
}

/** Registers the thread routes. */
export const registerThreadRoutes: RegisterRoutes = (api, context) => {
  const graph = () => context.harness.agent().graph;
  const setTtl = async (threadId: string, ttl: z.infer<typeof Ttl> | null | undefined) => {
    if (ttl == null) return;
    const { ttl: minutes, strategy } = typeof ttl === "number" ? { ttl, strategy: "delete" as const } : ttl;
    await context.threadTtl.set(threadId, minutes, strategy);
  };
  /** True once for a thread `/goal` created before its client did (see implicitCreationFile). */
  const claimImplicitThread = (threadId: string) =>
    rm(implicitCreationFile(context, threadId)).then(
      () => true,
      () => false,
    );

  api.post("/threads", async (c) => {
    const body = await parseBody(c, CreateSchema);
    // Only an id the client chose can meet the CLI's checkpoints, an upload's reservation or /goal's thread.
    const named = body.thread_id != null;
    const threadId = body.thread_id ?? uuid7();
    const metadata = { ...(body.metadata ?? {}), ...(body.graph_id ? { graph_id: body.graph_id } : {}) };
    const caller = callerOf(c);
    const ifExists = body.if_exists ?? "raise";
    // A thread only the checkpoints or files know (the CLI's) is recorded for its owner first: naming it claims nothing.
    // An id someone else reserved with an upload is taken, like an existing thread of theirs.
    if (named && !(await findThread(context, threadId)) && !(await reservationAllows(context, caller, threadId)))
      throw new HttpError(409, `Thread ${threadId} already exists.`);
    const { thread: record, created } = await context.threads.create(threadId, metadata, ifExists, caller.userId);
    // Made for this caller by `/goal` before their client created it: this create claims it, once.
    if (!created && named && owns(caller, record.owner) && (await claimImplicitThread(threadId))) {
      const claimed = Object.keys(metadata).length > 0 ? await context.threads.patch(threadId, { metadata }) : record;
      return c.json(thread(claimed ?? record));
    }
    // Someone else's thread id is taken, and says no more than that.
    if (!created && (ifExists === "raise" || !owns(caller, record.owner)))
      throw new HttpError(409, `Thread ${threadId} already exists.`);
    if (created) await setTtl(threadId, body.ttl);
    return c.json(thread(record));
  });

  api.post("/threads/search", async (c) => {
    const body = await parseBody(c, SearchSchema);
    const { threads, total } = await context.threads.searchJson(
      {
        ids: body.ids ?? undefined,
        metadata: body.metadata ?? undefined,
        values: body.values ?? undefined,
        status: body.status ?? undefined,
        owner: callerOf(c).userId,
        limit: body.limit,
        offset: body.offset,
        sort_by: body.sort_by,
        sort_order: body.sort_order,
      },
      body.select,
    );
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-pagination-total": String(total),
    };
    if (body.offset + threads.length < total) headers["x-pagination-next"] = String(body.offset + threads.length);
    // Each thread is the JSON text the database wrote from the stored JSON (runs/thread-json.ts).
    return c.body(`[${threads.join(",")}]`, 200, headers);
  });

  // Threads not the caller's, or unknown, are skipped: the count says how many were pruned.
  api.post("/threads/prune", async (c) => {
    const body = await parseBody(c, PruneSchema);
    const caller = callerOf(c);
    let pruned = 0;
    for (const threadId of new Set(body.thread_ids)) {
      if (!(await visibleThread(context, caller, threadId))) continue;
      if (await pruneThread(context, threadId, body.strategy)) pruned += 1;
    }
    return c.json({ pruned_count: pruned });
  });

  api.post("/threads/count", async (c) => {
    const body = await parseBody(c, CountSchema);
    return c.json(
      await context.threads.count({
        metadata: body.metadata ?? undefined,
        values: body.values ?? undefined,
        status: body.status ?? undefined,
        owner: callerOf(c).userId,
      }),
    );
  });

  api.get("/threads/:thread_id", async (c) =>
    c.json(thread(await requireThread(context, callerOf(c), pathId(c, "thread_id")))),
  );

  api.patch("/threads/:thread_id", async (c) => {
    const threadId = pathId(c, "thread_id");
    const body = await parseBody(c, PatchSchema);
    await requireThread(context, callerOf(c), threadId);
    const record = await context.threads.patch(threadId, { metadata: body.metadata ?? {} });
    await setTtl(threadId, body.ttl);
    if ((c.req.header("prefer") ?? "").includes("return=minimal")) return c.body(null, 204);
    return c.json(thread(record!));
  });

  api.delete("/threads/:thread_id", async (c) => {
    const threadId = pathId(c, "thread_id");
    if (!(await visibleThread(context, callerOf(c), threadId)) || !(await deleteThread(context, threadId)))
      throw notFound(`Thread ${threadId}`);
    return c.body(null, 204);
  });

  api.post("/threads/:thread_id/copy", async (c) => {
    const threadId = pathId(c, "thread_id");
    const source = await requireThread(context, callerOf(c), threadId);
    if ((await context.runs.active(threadId)).length > 0)
      throw new HttpError(409, `Thread ${threadId} has a run in progress; copy it after the run ends.`);
    const copyId = uuid7();
    await context.checkpoints.copyThreadState(threadId, copyId);
    await context.threads.create(copyId, source.metadata, "raise", source.owner);
    const copy = await context.threads.patch(copyId, {
      values: source.values,
      interrupts: source.interrupts,
      status: source.status === "busy" ? "idle" : source.status,
    });
    return c.json(thread(copy!));
  });

  api.get("/threads/:thread_id/state", async (c) => {
    const threadId = pathId(c, "thread_id");
    await requireThread(context, callerOf(c), threadId);
    const snapshot = await graph().getState(
      { configurable: { thread_id: threadId } },
      { subgraphs: c.req.query("subgraphs") === "true" },
    );
    return c.json(snapshot.config?.configurable?.checkpoint_id ? threadState(snapshot, threadId) : emptyThreadState());
  });

  const stateAt = async (
    caller: Caller,
    threadId: string,
    checkpoint: z.infer<typeof CheckpointRef>,
    subgraphs: boolean,
  ) => {
    await requireThread(context, caller, threadId);
    const snapshot = await graph().getState(
      {
        configurable: {
          thread_id: threadId,
          checkpoint_id: checkpoint.checkpoint_id ?? undefined,
          checkpoint_ns: checkpoint.checkpoint_ns ?? "",
        },
      },
      { subgraphs },
    );
    // LangGraph answers a checkpoint it does not have with an empty state under the id asked for.
    if (!snapshot.config?.configurable?.checkpoint_id || !snapshot.createdAt)
      throw notFound(`Checkpoint ${checkpoint.checkpoint_id ?? ""} of thread ${threadId}`);
    return threadState(snapshot, threadId);
  };
  api.post("/threads/:thread_id/state/checkpoint", async (c) => {
    const body = await parseBody(c, StateAtSchema);
    return c.json(await stateAt(callerOf(c), pathId(c, "thread_id"), body.checkpoint, body.subgraphs ?? false));
  });
  api.get("/threads/:thread_id/state/:checkpoint_id", async (c) =>
    c.json(
      await stateAt(
        callerOf(c),
        pathId(c, "thread_id"),
        { checkpoint_id: c.req.param("checkpoint_id") },
        c.req.query("subgraphs") === "true",
      ),
    ),
  );

  api.post("/threads/:thread_id/state", async (c) => {
    const threadId = pathId(c, "thread_id");
    const body = await parseBody(c, UpdateStateSchema);
    // The goal is the one channel a client writes routinely (`/goal`); a malformed one would reach every request.
    const goal = (body.values as { goal?: unknown } | null)?.goal;
    if (goal != null && !GoalState.safeParse(goal).success)
      throw new HttpError(
        422,
        'Invalid body field "values.goal": give { objective, set_at } as strings, or null to clear it.',
      );
    await requireThread(context, callerOf(c), threadId);
    if ((await context.runs.active(threadId)).length > 0)
      throw new HttpError(409, `Thread ${threadId} has a run in progress; update its state after the run ends.`);
    const config = await updateThreadValues(
      context,
      {
        threadId,
        checkpointId: body.checkpoint?.checkpoint_id ?? body.checkpoint_id ?? undefined,
        asNode: body.as_node ?? undefined,
      },
      body.values as Record<string, unknown> | null,
    );
    const checkpoint = {
      thread_id: threadId,
      checkpoint_ns: (config.configurable?.checkpoint_ns as string) ?? "",
      checkpoint_id: config.configurable?.checkpoint_id as string,
      checkpoint_map: null,
    };
    return c.json({ checkpoint, configurable: checkpoint });
  });

  // The SDK's patchState: merges metadata into the thread's latest checkpoint (no new checkpoint).
  api.patch("/threads/:thread_id/state", async (c) => {
    const threadId = pathId(c, "thread_id");
    const body = await parseBody(c, PatchStateSchema);
    await requireThread(context, callerOf(c), threadId);
    if ((await context.runs.active(threadId)).length > 0)
      throw new HttpError(409, `Thread ${threadId} has a run in progress; patch its state after the run ends.`);
    await patchCheckpointMetadata(context, threadId, body.metadata);
    return c.json({});
  });

  api.post("/threads/:thread_id/history", async (c) => {
    const threadId = pathId(c, "thread_id");
    const body = await parseBody(c, HistorySchema);
    await requireThread(context, callerOf(c), threadId);
    const before = typeof body.before === "string" ? body.before : body.before?.configurable?.checkpoint_id;
    const out: Record<string, unknown>[] = [];
    const config = {
      configurable: {
        thread_id: threadId,
        checkpoint_ns: body.checkpoint?.checkpoint_ns ?? "",
        ...(body.checkpoint?.checkpoint_id ? { checkpoint_id: body.checkpoint.checkpoint_id } : {}),
      },
    };
    for await (const snapshot of graph().getStateHistory(config, {
      limit: body.limit,
      ...(before ? { before: { configurable: { thread_id: threadId, checkpoint_id: before } } } : {}),
      ...(body.metadata ? { filter: body.metadata } : {}),
    })) {
      out.push(threadState(snapshot, threadId));
      if (out.length >= body.limit) break;
    }
    return c.json(out);
  });
};
