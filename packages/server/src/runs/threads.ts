/**
 * Thread lookups shared by the routes: a thread the CLI created (checkpoints, no server record) is
 * adopted on first sight, and thread deletion removes everything the thread owns in one call.
 */
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { type Harness, isValidThreadId, sandboxIdFor, type ThreadAccess, validateThreadId } from "@deerflow/harness";
import { type Caller, owns } from "../auth/caller.js";
import type { ServerContext } from "../context.js";
import { notFound } from "../http/errors.js";
import { toWire } from "./serialize.js";
import { interruptsOf } from "./state.js";
import type { RunRecord, ThreadRecord } from "./types.js";

/** Who owns a thread found only in the checkpoints (written by the CLI): the first admin, once accounts exist. */
async function adoptedOwner(context: ServerContext): Promise<string | null> {
  return (await context.users.firstAdmin())?.id ?? null;
}

/** The host directory of a thread's files, `{home}/threads/{id}`. */
function threadDir(harness: Harness, threadId: string): string {
  return path.join(harness.home, "threads", validateThreadId(threadId));
}

/** Where an upload reserves a thread id that has no thread yet (auth/thread-guard.ts). */
export function reservationFile(context: ServerContext, threadId: string): string {
  return path.join(threadDir(context.harness, threadId), "owner");
}

/**
 * Marks a thread made on the client's behalf before the client created it (DeerFlow's frontend may set a
 * `/goal` on a new chat before its first message): the client's own `POST /threads` of that id then
 * answers the thread instead of 409, once. A file beside the reservation, outside the sandbox's view.
 */
export function implicitCreationFile(context: ServerContext, threadId: string): string {
  return path.join(threadDir(context.harness, threadId), "created-implicitly");
}

/** Who reserved a thread id that has no thread yet: a user id, null (the local user), or undefined (nobody). */
export async function reservedBy(context: ServerContext, threadId: string): Promise<string | null | undefined> {
  try {
    const text = (await readFile(reservationFile(context, threadId), "utf8")).trim();
    return text === "" ? null : text;
  } catch {
    return undefined;
  }
}

/** Frees a thread's sandbox and removes its files (uploads, outputs, workspace). */
export async function removeThreadFiles(harness: Harness, threadId: string): Promise<void> {
  harness.setup.sandbox.release(sandboxIdFor(threadId));
  await rm(threadDir(harness, threadId), { recursive: true, force: true });
}

/**
 * The thread's record, adopting a checkpoint-only thread; null when neither exists. Sees every
 * owner's threads: routes use `requireThread` / `visibleThread` with the caller instead.
 *
 * A directory of files with neither (left by a temporary thread of an older version, or a CLI run that
 * stopped before its first checkpoint) is recorded as the home's local user's: whoever names it next
 * must not inherit the files, and with accounts on nobody sees it over HTTP.
 */
export async function findThread(context: ServerContext, threadId: string): Promise<ThreadRecord | null> {
  const existing = await context.threads.get(threadId);
  if (existing) return existing;
  const snapshot = await context.harness.agent().graph.getState({ configurable: { thread_id: threadId } });
  if (!snapshot.config?.configurable?.checkpoint_id) {
    if (!isValidThreadId(threadId) || !existsSync(threadDir(context.harness, threadId))) return null;
    // Files uploaded before the thread was created: the id is reserved for the uploader, not a thread yet.
    if ((await reservedBy(context, threadId)) !== undefined) return null;
    return (await context.threads.create(threadId, {}, "do_nothing", null)).thread;
  }
  await context.threads.create(threadId, {}, "do_nothing", await adoptedOwner(context));
  return context.threads.patch(threadId, {
    values: toWire(snapshot.values ?? {}) as Record<string, unknown>,
    interrupts: interruptsOf(snapshot),
    status: snapshot.next.length > 0 ? "interrupted" : "idle",
  });
}

/** The thread if it exists and belongs to `caller`; null otherwise (someone else's thread looks missing). */
export async function visibleThread(
  context: ServerContext,
  caller: Caller,
  threadId: string,
): Promise<ThreadRecord | null> {
  const thread = await findThread(context, threadId);
  return thread && owns(caller, thread.owner) ? thread : null;
}

/**
 * The server's answer to the harness's `read_conversation` access question: a run's user reads a
 * thread only when visibleThread would show it to them (they own it).
 */
export function threadAccessOf(context: ServerContext): ThreadAccess {
  return async (threadId, userId) => {
    const caller: Caller = { userId: userId ?? null, name: userId ?? "local", admin: false, via: "key" };
    return (await visibleThread(context, caller, threadId)) !== null;
  };
}

/** Like visibleThread, but a missing (or someone else's) thread is a 404. */
export async function requireThread(context: ServerContext, caller: Caller, threadId: string): Promise<ThreadRecord> {
  const thread = await visibleThread(context, caller, threadId);
  if (!thread) throw notFound(`Thread ${threadId}`);
  return thread;
}

/** True when `run` was started by `caller` (runs from before accounts: when its thread is theirs). */
export async function ownsRun(context: ServerContext, caller: Caller, run: RunRecord): Promise<boolean> {
  if (run.kwargs.owner !== undefined) return owns(caller, run.kwargs.owner);
  return owns(caller, (await context.threads.get(run.thread_id))?.owner ?? null);
}

/** Adopts every thread that has checkpoints but no record (threads created by the CLI), at start-up. */
export async function adoptCheckpointThreads(context: ServerContext): Promise<void> {
  for (const threadId of context.harness.listThreadIds()) {
    if (!(await context.threads.get(threadId))) await findThread(context, threadId);
  }
}

/**
 * Deletes a thread: stops its runs, then removes its record, runs, checkpoints, history archive,
 * events, batches, sandbox and files. Returns false when there was nothing to delete.
 */
export async function deleteThread(context: ServerContext, threadId: string): Promise<boolean> {
  const thread = await findThread(context, threadId);
  const active = await context.runs.active(threadId);
  for (const run of active) context.queue.cancel(run.run_id, "interrupt");
  const deadline = Date.now() + 10_000;
  while (context.worker.activeRunIds().some((id) => active.some((run) => run.run_id === id)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const run of active) await context.events.drop(run.run_id);
  await context.checkpoints.deleteThreadState(threadId);
  // Files before the record: files without a record would be recorded again, as the local user's.
  await removeThreadFiles(context.harness, threadId);
  // Its crons would only fail at each due time from now on.
  await context.crons.deleteForThread(threadId);
  await context.harness.setup.batchStore?.deleteThread(threadId);
  await context.feedback.deleteForThread(threadId);
  await context.threadTtl.clear(threadId);
  await context.threads.delete(threadId);
  return thread !== null;
}
