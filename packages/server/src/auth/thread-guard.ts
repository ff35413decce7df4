/**
 * Ownership of every route under `/threads/{thread_id}`, checked once before the route runs: a thread
 * that belongs to someone else answers 404, exactly like a missing one, so neither its data nor its
 * existence leaks, and a route added later is covered without remembering to check. A missing thread
 * is left to the route (404, or created by a run or an upload); an upload creates it for its caller
 * first, so the files it stores are never someone else's to find.
 */
import type { MiddlewareHandler } from "hono";
import type { ServerContext } from "../context.js";
import { notFound } from "../http/errors.js";
import { findThread } from "../runs/threads.js";
import { callerOf, owns } from "./caller.js";

/** Path segments after `/threads/` that are routes, not thread ids. */
const NOT_IDS = new Set(["search", "count"]);

/** The middleware; mount it on `/threads/:thread_id` and `/threads/:thread_id/*`. */
export function threadOwnershipGuard(context: ServerContext): MiddlewareHandler {
  return async (c, next) => {
    const threadId = c.req.param("thread_id");
    if (!threadId || NOT_IDS.has(threadId)) return next();
    const caller = callerOf(c);
    let thread = await findThread(context, threadId).catch(() => null);
    if (!thread && c.req.method === "POST" && /\/uploads$/.test(c.req.path)) {
      thread = (await context.threads.create(threadId, {}, "do_nothing", caller.userId)).thread;
    }
    if (thread && !owns(caller, thread.owner)) throw notFound(`Thread ${threadId}`);
    return next();
  };
}
