/**
 * Ownership of every route under `/threads/{thread_id}`, checked once before the route runs: a thread
 * that belongs to someone else answers 404, exactly like a missing one, so neither its data nor its
 * existence leaks, and a route added later is covered without remembering to check.
 *
 * A thread may get files before it exists (DeerFlow's frontend uploads, then creates the thread). Such
 * an upload reserves the id for its caller: `{home}/threads/{id}/owner`, outside the sandbox's view.
 * The reservation makes the id someone else's for everyone else, without creating the thread, so the
 * client's following `POST /threads` still creates it as usual.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { isValidThreadId } from "@deerflow/harness";
import type { MiddlewareHandler } from "hono";
import type { ServerContext } from "../context.js";
import { notFound } from "../http/errors.js";
import { findThread, reservationFile, reservedBy } from "../runs/threads.js";
import type { ThreadRecord } from "../runs/types.js";
import { routePath } from "./authenticate.js";
import { type Caller, callerOf, owns } from "./caller.js";

declare module "hono" {
  interface ContextVariableMap {
    /** The thread of the request's path as the guard read it (the caller's), for a route that needs it at once. */
    thread: ThreadRecord;
  }
}

/** `POST /threads/search`, `/threads/count` and `/threads/prune` are routes; under any other method or path those are thread ids. */
const COLLECTION_ROUTES = new Set(["/threads/search", "/threads/count", "/threads/prune"]);

/** Reserves a thread id for `caller` unless someone holds it; false when someone else does. */
async function reserve(context: ServerContext, caller: Caller, threadId: string): Promise<boolean> {
  const holder = await reservedBy(context, threadId);
  if (holder !== undefined) return owns(caller, holder);
  const file = reservationFile(context, threadId);
  await mkdir(path.dirname(file), { recursive: true });
  // `wx`: of two first uploads at once, one writes the reservation and the other reads it.
  await writeFile(file, caller.userId ?? "", { flag: "wx" }).catch(() => undefined);
  return owns(caller, await reservedBy(context, threadId));
}

/** True when `threadId` (with no thread yet) is free for `caller`: unreserved, or reserved by them. */
export async function reservationAllows(context: ServerContext, caller: Caller, threadId: string): Promise<boolean> {
  const holder = await reservedBy(context, threadId);
  return holder === undefined || owns(caller, holder);
}

/** The middleware; mount it on `/threads/:thread_id` and `/threads/:thread_id/*`. */
export function threadOwnershipGuard(context: ServerContext): MiddlewareHandler {
  return async (c, next) => {
    const threadId = c.req.param("thread_id");
    // An id the harness refuses names no thread: the route answers 422.
    if (!isValidThreadId(threadId)) return next();
    if (c.req.method === "POST" && COLLECTION_ROUTES.has(routePath(c.req.path))) return next();
    const caller = callerOf(c);
    // No catch: when the store cannot answer, the request fails; routes that trust this check (files) must not run.
    const thread = await findThread(context, threadId);
    if (thread) {
      if (!owns(caller, thread.owner)) throw notFound(`Thread ${threadId}`);
      c.set("thread", thread);
      return next();
    }
    const ok =
      c.req.method === "POST" && /\/uploads$/.test(c.req.path)
        ? await reserve(context, caller, threadId)
        : await reservationAllows(context, caller, threadId);
    if (!ok) throw notFound(`Thread ${threadId}`);
    return next();
  };
}
