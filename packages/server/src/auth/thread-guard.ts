/**
 * Ownership of every route under `/threads/{thread_id}`, checked once before the route runs: a thread
 * that belongs to someone else answers 404, exactly like a missing one, so neither its data nor its
 * existence leaks, and a route added later is covered without remembering to check. A missing thread
 * is left to the route (404, or created by a run or an upload); an upload creates it for its caller
 * first, so the files it stores are never someone else's to find.
 */
import { isValidThreadId } from "@deerflow/harness";
import type { MiddlewareHandler } from "hono";
import { routePath } from "./authenticate.js";
import type { ServerContext } from "../context.js";
import { notFound } from "../http/errors.js";
import { findThread } from "../runs/threads.js";
import { callerOf, owns } from "./caller.js";

/** `POST /threads/search` and `/threads/count` are routes; under any other method or path those are thread ids. */
const COLLECTION_ROUTES = new Set(["/threads/search", "/threads/count"]);

/** The middleware; mount it on `/threads/:thread_id` and `/threads/:thread_id/*`. */
export function threadOwnershipGuard(context: ServerContext): MiddlewareHandler {
  return async (c, next) => {
    const threadId = c.req.param("thread_id");
    // An id the harness refuses names no thread: the route answers 422.
    if (!isValidThreadId(threadId)) return next();
    if (c.req.method === "POST" && COLLECTION_ROUTES.has(routePath(c.req.path))) return next();
    const caller = callerOf(c);
    // No catch: when the store cannot answer, the request fails; routes that trust this check (files) must not run.
    let thread = await findThread(context, threadId);
    if (!thread && c.req.method === "POST" && /\/uploads$/.test(c.req.path)) {
      thread = (await context.threads.create(threadId, {}, "do_nothing", caller.userId)).thread;
    }
    if (thread && !owns(caller, thread.owner)) throw notFound(`Thread ${threadId}`);
    return next();
  };
}
