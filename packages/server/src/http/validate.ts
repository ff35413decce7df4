/**
 * Request bodies and query strings through zod at the trust boundary. A body that is not JSON, a wrong
 * type or an unknown field is a 422 whose detail names the field, so a client author can fix the call
 * from the message alone. `text/plain` bodies are read as JSON, as the LangGraph servers do.
 */
import type { Context } from "hono";
import { isValidThreadId, THREAD_ID_RULE } from "@deerflow/harness";
import { z } from "zod";
import { HttpError } from "./errors.js";

/**
 * Deepest nesting of arrays and objects a JSON body may have. Real requests stay far below it (a
 * message with tool-call arguments is a dozen levels); far deeper values parse, but then overflow the
 * stack of whatever walks them (validation, serialization), which would be a 500.
 */
export const MAX_JSON_DEPTH = 128;

/** The nesting depth of JSON text (brackets inside strings do not count), stopping once past `limit`. */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 92 /* \ */) i++;
      else if (char === 34 /* " */) inString = false;
    } else if (char === 34) inString = true;
    else if (char === 91 /* [ */ || char === 123 /* { */) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (char === 93 /* ] */ || char === 125 /* } */) depth--;
  }
  return deepest;
}

/** A JSON request body's value (an empty body counts as `{}`); malformed or too deeply nested JSON is a 422. */
export function parseJsonText(text: string): unknown {
  if (text.trim() === "") return {};
  if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    throw new HttpError(
      422,
      `Request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep. Send a flatter JSON value.`,
    );
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(422, `Request body is not valid JSON (${(error as Error).message}). Send a JSON object.`);
  }
}

/** Parses the JSON body (an empty body counts as `{}`) with `schema`. */
export async function parseBody<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  return check(schema, parseJsonText(await c.req.text()), "body");
}

/** Parses the query string (single values as strings) with `schema`. */
export function parseQuery<T extends z.ZodType>(c: Context, schema: T): z.infer<T> {
  return check(schema, c.req.query(), "query");
}

/** Validates `value`; a failure becomes a 422 naming the first offending field. */
export function check<T extends z.ZodType>(schema: T, value: unknown, where: "body" | "query" | "path"): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.join(".") : undefined;
  const unknownKeys = issue.code === "unrecognized_keys" ? (issue as { keys: string[] }).keys : undefined;
  const detail = unknownKeys
    ? `Unknown field${unknownKeys.length > 1 ? "s" : ""} in ${where}: ${unknownKeys.map((key) => (field ? `${field}.${key}` : key)).join(", ")}.`
    : `Invalid ${where} field "${field ?? "(root)"}": ${issue.message}.`;
  throw new HttpError(422, detail);
}

/** Thread and run ids: UUIDs from clients, or the CLI's ids; the harness's one thread id rule. */
export const Id = z.string().refine(isValidThreadId, `must be ${THREAD_ID_RULE}`);

/** Validates a path parameter as an id; 404-style ids that cannot exist are 422. */
export function pathId(c: Context, name: string): string {
  return check(Id, c.req.param(name), "path");
}

/** A query flag: "1"/"true" are true, "0"/"false"/absent are false (the JS server's coerce got "0" wrong). */
export function flag(value: string | undefined): boolean {
  return value === "1" || value === "true" || value === "True";
}
