/**
 * The files of a multipart/form-data body, for the routes that take uploads (thread uploads, skill
 * archives). Any field name counts; a body over the route's limit keeps its 413, any other unreadable
 * body is a 422 whose message the route words for what it expects.
 */
import type { Context } from "hono";
import { HttpError } from "./errors.js";

/** Every file in the multipart body; `unreadable(reason)` words the 422 for a body that is not multipart. */
export async function multipartFiles(c: Context, unreadable: (reason: string) => string): Promise<File[]> {
  let form: Record<string, unknown>;
  try {
    form = await c.req.parseBody({ all: true });
  } catch (error) {
    if ((error as { status?: number }).status === 413) throw error;
    throw new HttpError(422, unreadable((error as Error).message));
  }
  return Object.values(form)
    .flat()
    .filter((value): value is File => typeof value === "object" && value !== null && "arrayBuffer" in value);
}
