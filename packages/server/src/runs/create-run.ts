/**
 * Creating a run, shared by stream / create / wait on threads and stateless: validate the request,
 * resolve the assistant and the run options (an unknown model fails here, before a run exists), find
 * or create the thread, apply the multitask strategy and the caller's quota (auth/quotas.ts) atomically
 * with the insert, publish `metadata`, queue. The request handler then only reads the run's event log.
 */
import type { ServerContext } from "../context.js";
import { HttpError, notFound } from "../http/errors.js";
import { check } from "../http/validate.js";
import { findRunAssistant, GRAPH_ID } from "./assistants.js";
import { uuid7 } from "./ids.js";
import { type RunCreate, RunCreateSchema, runKwargs, runOptionsOf } from "./run-request.js";
import { findThread } from "./threads.js";
import { type Caller, owns } from "../auth/caller.js";
import { reservationAllows } from "../auth/thread-guard.js";
import { admitRun } from "../auth/quotas.js";
import { ThreadBusyError, type RunRecord, type RunStatus, TerminalRunStatus, type ThreadRecord } from "./types.js";
import { appendMetadata, ensureMetadata } from "./worker.js";
import { checkWebhookUrl } from "../webhooks/deliveries.js";

/** Statuses after which a run is over. */
export const TERMINAL: ReadonlySet<RunStatus> = new Set(TerminalRunStatus.options);

/**
 * Ids a caller inside the server chooses (a cron firing): with `runId` set, a run that already exists
 * is returned as it is, so handling the same firing twice starts one run.
 */
export interface RunIds {
  runId?: string;
  /** The temporary thread of a stateless run. */
  temporaryThreadId?: string;
  /** The thread as the request's ownership check just read it, so it is not read again. */
  thread?: ThreadRecord;
}

/** Creates and queues a run on `threadId` (null: stateless). */
export async function createRun(
  context: ServerContext,
  caller: Caller,
  threadId: string | null,
  body: unknown,
  ids: RunIds = {},
): Promise<{ run: RunRecord; request: RunCreate }> {
  if (context.draining)
    throw new HttpError(503, "The server is shutting down and takes no new runs; retry in a moment.");
  const request = check(RunCreateSchema, body, "body");
  if (request.webhook) checkWebhookUrl(request.webhook);
  const existing = ids.runId ? await context.runs.get(ids.runId) : null;
  if (existing) return { run: existing, request };
  const assistant = findRunAssistant(request.assistant_id, () => context.assistants(caller.userId));
  if (!assistant) throw notFound(`Assistant "${request.assistant_id}"`);
  const runOptions = runOptionsOf(request, assistant.context);
  // Builds (and caches) the graph now, so an unknown model or agent name is a 422 and no run is recorded.
  context.harness.agent({ ...runOptions, user_id: caller.userId ?? undefined } as never);
  const quota = await admitRun(context, caller);

  // DeerFlow's IM channels send stateless runs with configurable.thread_id to continue a thread.
  const named =
    typeof request.config?.configurable?.thread_id === "string"
      ? (request.config.configurable.thread_id as string)
      : undefined;
  const temporary = threadId === null && named === undefined;
  const id = threadId ?? named ?? ids.temporaryThreadId ?? uuid7();
  let thread = ids.thread?.thread_id === id ? ids.thread : await findThread(context, id);
  // Someone else's thread is missing as far as this caller can tell, and cannot be created over.
  if (thread && !owns(caller, thread.owner)) throw notFound(`Thread ${id}`);
  if (!thread && !(await reservationAllows(context, caller, id))) throw notFound(`Thread ${id}`);
  if (!thread && threadId !== null && request.if_not_exists !== "create") throw notFound(`Thread ${id}`);
  const kwargs = { ...runKwargs(request, { runOptions, temporary }), owner: caller.userId };
  if (request.after_seconds) kwargs.not_before = new Date(Date.now() + request.after_seconds * 1000).toISOString();
  if (kwargs.checkpoint_id) await requireCheckpoint(context, id, kwargs.checkpoint_id, kwargs.checkpoint_ns);
  let madeThread = false;
  if (!thread) {
    const created = await context.threads.create(id, { ...(request.metadata ?? {}) }, "do_nothing", caller.userId);
    if (!owns(caller, created.thread.owner)) throw notFound(`Thread ${id}`);
    thread = created.thread;
    madeThread = created.created;
  }

  const at = new Date().toISOString();
  const run: RunRecord = {
    run_id: ids.runId ?? uuid7(),
    thread_id: id,
    assistant_id: assistant.assistant_id,
    created_at: at,
    updated_at: at,
    status: "pending",
    metadata: request.metadata ?? {},
    multitask_strategy: request.multitask_strategy ?? "reject",
    kwargs,
  };
  // A run id made here is new, so its log cannot exist yet; a given one (a cron's firing, retried after a
  // crash) may already have its metadata.
  if (ids.runId) await ensureMetadata(context.events, run, 1);
  else await appendMetadata(context.events, run, 1);
  // Recorded before the run exists, so no crash can leave a webhook run without its delivery.
  if (request.webhook) await context.deliveries.expect(run.run_id, request.webhook);
  let superseded: RunRecord[];
  try {
    // The thread names the graph and assistant of its latest accepted run, and is busy with it (in the insert's transaction).
    ({ superseded } = await context.runs.insert(run, quota, {
      metadata: { graph_id: GRAPH_ID, assistant_id: assistant.assistant_id },
      status: "busy",
    }));
  } catch (error) {
    await context.events.drop(run.run_id);
    if (request.webhook) await context.deliveries.forget(run.run_id);
    if (error instanceof ThreadBusyError) throw new HttpError(409, error.message);
    // A run refused by a quota leaves nothing behind, not even the thread made for it.
    if (error instanceof HttpError && madeThread) await context.threads.delete(id).catch(() => false);
    throw error;
  }
  for (const old of superseded)
    context.queue.cancel(old.run_id, run.multitask_strategy === "rollback" ? "rollback" : "interrupt");
  context.queue.notify();
  if (kwargs.not_before) wakeAt(context, Date.parse(kwargs.not_before));
  return { run, request };
}

/** Wakes the workers when a delayed run (after_seconds) becomes claimable. */
function wakeAt(context: ServerContext, at: number): void {
  setTimeout(() => context.queue.notify(), Math.max(0, at - Date.now()) + 5).unref();
}

/**
 * A run that forks (`checkpoint` / `checkpoint_id`: regenerate, edit, time travel) must name a
 * checkpoint the thread has: LangGraph, given one it cannot find, starts from an empty state, so an
 * edit would silently drop the conversation before it and a regenerate would fail with `Received no
 * input writes for "__start__"`.
 */
async function requireCheckpoint(context: ServerContext, threadId: string, checkpointId: string, ns: string) {
  const checkpointer = context.harness.setup.checkpointer;
  if (!checkpointer) return;
  const saved = await checkpointer.getTuple({
    configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId },
  });
  if (!saved)
    throw new HttpError(
      404,
      `Checkpoint ${checkpointId} of thread ${threadId} not found. Fork from a checkpoint the thread's history (POST /threads/${threadId}/history) lists.`,
    );
}

/** Mount-relative paths of a run (the SDK prepends its apiUrl to Location). */
export function runPaths(run: RunRecord): { contentLocation: string; location: string } {
  const base = run.kwargs.temporary ? `/runs/${run.run_id}` : `/threads/${run.thread_id}/runs/${run.run_id}`;
  return { contentLocation: base, location: `${base}/stream` };
}

/**
 * Resolves when the run is over (or gone); returns the run as last seen. Reads the event log when there
 * is one; otherwise (after a restart, before the worker picks the run up) polls the run record.
 */
export async function waitForRun(
  context: ServerContext,
  runId: string,
  signal: AbortSignal,
): Promise<RunRecord | null> {
  while (!signal.aborted) {
    const run = await context.runs.get(runId);
    if (!run || TERMINAL.has(run.status)) return run;
    if (await context.events.has(runId)) {
      for await (const event of context.events.follow(runId, "-1", signal)) void event;
      if (signal.aborted) break;
      const settled = await context.runs.get(runId);
      if (!settled || TERMINAL.has(settled.status)) return settled;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return context.runs.get(runId);
}

/** What `/wait` and `/join` return: the thread's values, the stateless run's output, or `{__error__}`. */
export async function runResult(context: ServerContext, run: RunRecord | null): Promise<unknown> {
  if (!run) return null;
  if (run.status === "error" && run.kwargs.error) return { __error__: run.kwargs.error };
  if (run.kwargs.temporary) return run.kwargs.output ?? null;
  const thread = await context.threads.get(run.thread_id);
  return thread?.values ?? null;
}
