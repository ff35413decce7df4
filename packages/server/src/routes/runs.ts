/**
 * Runs on a thread and stateless runs: stream / create / wait, list, get, delete, cancel, join (JSON)
 * and join-stream (SSE with Last-Event-ID). Handlers create runs and read their event logs; the worker
 * executes them.
 */
import type { Context } from "hono";
import { z } from "zod";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { type Caller, callerOf } from "../auth/caller.js";
import { HttpError, notFound } from "../http/errors.js";
import { check, flag, parseJsonText, parseQuery, pathId } from "../http/validate.js";
import { createRun, runPaths, runResult, TERMINAL, waitForRun } from "../runs/create-run.js";
import { sseResponse, waitingJsonResponse } from "../runs/sse.js";
import { ownsRun, requireThread } from "../runs/threads.js";
import { type RunRecord, RunStatus } from "../runs/types.js";

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(10),
  offset: z.coerce.number().int().min(0).default(0),
  status: RunStatus.optional(),
  select: z.string().optional(),
});
const CancelQuery = z.object({
  wait: z.string().optional(),
  action: z.enum(["interrupt", "rollback"]).default("interrupt"),
  reason: z.string().optional(),
});
const JoinStreamQuery = z.object({
  cancel_on_disconnect: z.string().optional(),
  stream_mode: z.string().optional(),
  namespace: z.string().optional(),
  checkpoint_id: z.string().optional(),
});

const CancelManySchema = z.strictObject({
  thread_id: z.string().nullish(),
  run_ids: z.array(z.string()).max(1000).nullish(),
  status: z.enum(["pending", "running", "all"]).nullish(),
});

/** Stops a pending or running run: a pending one is settled here, a running one is signalled to the worker. */
async function cancelRun(context: ServerContext, run: RunRecord, action: "interrupt" | "rollback"): Promise<void> {
  if (run.status === "pending") {
    if (action === "rollback") await context.runs.delete(run.run_id);
    else await context.runs.update(run.run_id, { status: "interrupted" });
    const others = await context.runs.active(run.thread_id);
    if (others.length === 0) await context.threads.patch(run.thread_id, { status: "idle" });
    await context.events.end(run.run_id);
  }
  context.queue.cancel(run.run_id, action);
}

/** The run as the API returns it (stored request under `kwargs`, minus worker bookkeeping). */
export function runJson(run: RunRecord, fields?: string[]): Record<string, unknown> {
  const {
    output: _output,
    input_consumed: _consumed,
    start_checkpoint_id: _start,
    owner: _owner,
    not_before: _notBefore,
    ...kwargs
  } = run.kwargs;
  const full: Record<string, unknown> = { ...run, kwargs };
  if (!fields?.length) return full;
  return Object.fromEntries(fields.filter((field) => field in full).map((field) => [field, full[field]]));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(422, `Invalid query field "select": ${text} is not JSON.`);
  }
}

async function readJson(c: Context): Promise<unknown> {
  return parseJsonText(await c.req.text());
}

function setRunHeaders(c: Context, run: RunRecord, stream: boolean): void {
  const paths = runPaths(run);
  c.header("content-location", paths.contentLocation);
  c.header("location", stream ? paths.location : `${paths.contentLocation}/join`);
}

/** A stream_mode query value: a JSON array (what the SDK sends for arrays), or one or more plain names. */
function modesParam(value: string | undefined, all: string[] | undefined): string[] | undefined {
  const raw = value ?? (all && all.length > 1 ? JSON.stringify(all) : undefined);
  if (!raw) return undefined;
  if (raw.startsWith("[")) {
    try {
      return (JSON.parse(raw) as unknown[]).map(String);
    } catch {
      throw new HttpError(422, 'Invalid query field "stream_mode": not a JSON array.');
    }
  }
  return all && all.length > 1 ? all : [raw];
}

async function requireRun(
  context: ServerContext,
  caller: Caller,
  threadId: string | null,
  runId: string,
): Promise<RunRecord> {
  const run = await context.runs.get(runId);
  if (!run || (threadId !== null && run.thread_id !== threadId) || !(await ownsRun(context, caller, run))) {
    throw notFound(`Run ${runId}${threadId ? ` on thread ${threadId}` : ""}`);
  }
  return run;
}

/** Registers the run routes. */
export const registerRunRoutes: RegisterRoutes = (api, context) => {
  /**
   * Creates the run of a request whose body is read, marked as a run request being answered until
   * `answer` made its response (the stream marks it done itself, at its first event).
   */
  const answerRun = async (
    c: Context,
    threadId: string | null,
    answer: (run: RunRecord, answered: () => void) => Response,
  ): Promise<Response> => {
    const body = await readJson(c);
    const answered = context.requestsFirst.begin();
    try {
      const { run } = await createRun(context, callerOf(c), threadId, body, { thread: c.get("thread") });
      return answer(run, answered);
    } catch (error) {
      answered();
      throw error;
    }
  };
  const stream = (c: Context, threadId: string | null) =>
    answerRun(c, threadId, (run, answered) =>
      sseResponse(context, run, {
        after: "-1",
        cancelOnDisconnect: run.kwargs.on_disconnect === "cancel",
        signal: c.req.raw.signal,
        onFirstEvent: answered,
      }),
    );
  const create = (c: Context, threadId: string | null) =>
    answerRun(c, threadId, (run, answered) => {
      answered();
      setRunHeaders(c, run, false);
      return c.json(runJson(run));
    });
  const wait = (c: Context, threadId: string | null) =>
    answerRun(c, threadId, (run, answered) => {
      answered();
      return waitingJsonResponse(
        context,
        run,
        async (signal) => runResult(context, await waitForRun(context, run.run_id, signal)),
        {
          signal: c.req.raw.signal,
          cancelOnDisconnect: run.kwargs.on_disconnect === "cancel",
        },
      );
    });
  const joinStream = async (c: Context, threadId: string | null) => {
    const run = await requireRun(context, callerOf(c), threadId, pathId(c, "run_id"));
    const query = parseQuery(c, JoinStreamQuery);
    const lastEventId = c.req.header("last-event-id") ?? null;
    return sseResponse(context, run, {
      after: lastEventId,
      cancelOnDisconnect: flag(query.cancel_on_disconnect),
      modes: modesParam(query.stream_mode, c.req.queries("stream_mode")),
      signal: c.req.raw.signal,
    });
  };
  const join = async (c: Context, threadId: string | null) => {
    const run = await requireRun(context, callerOf(c), threadId, pathId(c, "run_id"));
    const cancelOnDisconnect = flag(c.req.query("cancel_on_disconnect"));
    return waitingJsonResponse(
      context,
      run,
      async (signal) => runResult(context, await waitForRun(context, run.run_id, signal)),
      {
        signal: c.req.raw.signal,
        cancelOnDisconnect,
      },
    );
  };

  // Thread runs.
  api.post("/threads/:thread_id/runs/stream", (c) => stream(c, pathId(c, "thread_id")));
  api.post("/threads/:thread_id/runs/wait", (c) => wait(c, pathId(c, "thread_id")));
  api.post("/threads/:thread_id/runs", (c) => create(c, pathId(c, "thread_id")));
  api.get("/threads/:thread_id/runs", async (c) => {
    const threadId = pathId(c, "thread_id");
    const query = parseQuery(c, ListQuery);
    await requireThread(context, callerOf(c), threadId);
    const runs = await context.runs.list(threadId, { limit: query.limit, offset: query.offset, status: query.status });
    // The SDK repeats array params (select=a&select=b); older clients send JSON or a comma list.
    const fields = query.select
      ? (c.req.queries("select") ?? []).flatMap((value) =>
          value.startsWith("[") ? (check(z.array(z.string()), safeJson(value), "query") as string[]) : value.split(","),
        )
      : undefined;
    return c.json(runs.map((run) => runJson(run, fields)));
  });
  api.get("/threads/:thread_id/runs/:run_id", async (c) =>
    c.json(runJson(await requireRun(context, callerOf(c), pathId(c, "thread_id"), pathId(c, "run_id")))),
  );
  api.delete("/threads/:thread_id/runs/:run_id", async (c) => {
    const run = await requireRun(context, callerOf(c), pathId(c, "thread_id"), pathId(c, "run_id"));
    if (!TERMINAL.has(run.status))
      throw new HttpError(409, `Run ${run.run_id} is ${run.status}; cancel it before deleting it.`);
    await context.runs.delete(run.run_id);
    await context.events.drop(run.run_id);
    return c.body(null, 204);
  });
  api.post("/threads/:thread_id/runs/:run_id/cancel", async (c) => {
    const run = await requireRun(context, callerOf(c), pathId(c, "thread_id"), pathId(c, "run_id"));
    const query = parseQuery(c, CancelQuery);
    if (TERMINAL.has(run.status))
      throw new HttpError(409, `Run ${run.run_id} is not cancellable (status: ${run.status}).`);
    await cancelRun(context, run, query.action);
    if (flag(query.wait)) {
      await waitForRun(context, run.run_id, c.req.raw.signal);
      return c.body(null, 204);
    }
    return c.body(null, 202);
  });
  api.get("/threads/:thread_id/runs/:run_id/stream", (c) => joinStream(c, pathId(c, "thread_id")));
  api.get("/threads/:thread_id/runs/:run_id/join", (c) => join(c, pathId(c, "thread_id")));

  // Stateless runs (a temporary thread, deleted afterwards unless on_completion: keep).
  api.post("/runs/stream", (c) => stream(c, null));
  api.post("/runs/wait", (c) => wait(c, null));
  api.post("/runs", (c) => create(c, null));
  api.get("/runs/:run_id", async (c) =>
    c.json(runJson(await requireRun(context, callerOf(c), null, pathId(c, "run_id")))),
  );
  api.get("/runs/:run_id/stream", (c) => joinStream(c, null));
  api.get("/runs/:run_id/join", (c) => join(c, null));
  api.post("/runs/:run_id/cancel", async (c) => {
    const run = await requireRun(context, callerOf(c), null, pathId(c, "run_id"));
    const query = parseQuery(c, CancelQuery);
    if (TERMINAL.has(run.status))
      throw new HttpError(409, `Run ${run.run_id} is not cancellable (status: ${run.status}).`);
    await cancelRun(context, run, query.action);
    return c.body(null, 202);
  });
  // cancelMany: the runs named, or a thread's pending/running runs.
  api.post("/runs/cancel", async (c) => {
    const query = parseQuery(c, z.object({ action: z.enum(["interrupt", "rollback"]).default("interrupt") }));
    const body = check(CancelManySchema, await readJson(c), "body");
    if (!body.run_ids && !body.thread_id)
      throw new HttpError(
        422,
        'Invalid body: give "run_ids" or "thread_id" (cancelling every run of every thread is not supported).',
      );
    const candidates = body.run_ids
      ? (await Promise.all(body.run_ids.map((id) => context.runs.get(id)))).filter(
          (run): run is RunRecord => run !== null && (!body.thread_id || run.thread_id === body.thread_id),
        )
      : await context.runs.active(body.thread_id!);
    const status = body.status ?? "all";
    const caller = callerOf(c);
    for (const run of candidates) {
      if (TERMINAL.has(run.status) || (status !== "all" && run.status !== status)) continue;
      if (!(await ownsRun(context, caller, run))) continue;
      await cancelRun(context, run, query.action);
    }
    return c.body(null, 204);
  });
};
