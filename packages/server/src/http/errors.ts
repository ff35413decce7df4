/**
 * Errors as the clients expect them: FastAPI-style `{"detail": "..."}` with the right status, never a
 * stack trace. DeerFlow's frontend reads `detail` and matches on phrases such as "is not cancellable";
 * the SDK turns any non-2xx into `HTTP {status}: {body}` and does not retry 4xx.
 */
import type { Context } from "hono";
import { isHarnessError } from "@deerflow/harness";
import { DISK_FULL_DETAIL, isDiskFull } from "../runs/disk-full.js";

/** An error with an HTTP status and a one-line `detail` for the client. */
export class HttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 422 | 429 | 500 | 503 | 507,
    readonly detail: string,
    /** Extra response headers (e.g. `Retry-After` on a 429). */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = "HttpError";
  }
}

/** 404 with a sentence naming what was not found. */
export function notFound(what: string): HttpError {
  return new HttpError(404, `${what} not found.`);
}

/**
 * The app's error handler: HttpErrors keep their status; harness configuration errors (unknown model,
 * bad agent name) are the caller's fault (422); a full disk is a 507 saying so (the client can do
 * nothing but wait or tell the operator); anything else is a 500 whose detail names no internals.
 */
export function errorResponse(error: unknown, c: Context, log: (line: string) => void): Response {
  if (error instanceof HttpError) return c.json({ detail: error.detail }, error.status, error.headers);
  if (isHarnessError(error) && (error.code === "config_invalid" || error.code === "model_unknown")) {
    return c.json({ detail: error.message }, 422);
  }
  if (isHarnessError(error) && error.code === "agent_not_found") return c.json({ detail: error.message }, 404);
  if (isHarnessError(error) && error.code === "agent_exists") return c.json({ detail: error.message }, 409);
  const status = (error as { status?: unknown }).status;
  if (status === 413) return c.json({ detail: "Request body is too large." }, 413);
  if (isDiskFull(error)) {
    log(
      `error: ${c.req.method} ${c.req.path}: the disk is full: ${error instanceof Error ? error.message : String(error)}`,
    );
    return c.json({ detail: DISK_FULL_DETAIL }, 507);
  }
  log(
    `error: ${c.req.method} ${c.req.path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return c.json({ detail: "Internal server error. The server log has the details." }, 500);
}
