/**
 * Arguments shared by the built-in tools, and how their schemas are shown to the model. DeerFlow puts a
 * `description` first in every sandbox tool so the UI and logs can say why a command or file operation
 * happened; the model must fill it. Every schema is sent with every agent request, so what the model is
 * shown is kept to what it needs (`shownAs`, `withoutSchemaDialect`).
 */
import type { StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod";

/** The leading `description` argument of every sandbox tool. */
export const descriptionArg = z.string().describe("Why you are calling this tool, in a few words. Give it first.");

/**
 * `schema` as validation takes it, with `shown` as the JSON schema the model is shown instead of the one
 * zod derives: the one shape the model should send, while validation still takes the other shapes models
 * send (null, a string for a list). zod merges `.meta()` into the schema it derives; the keys a derived
 * union or number carries (`anyOf`, `type`, `items`, `minimum`, `maximum`) are cleared first, so the
 * safe-integer bounds of `.int()` and the alternatives of a lenient union are not sent with every request.
 *
 * @example
 * shownAs(z.number().int().nullish(), { type: "integer" }); // the model sees {"type":"integer"}; null still validates
 */
export function shownAs<T extends z.ZodType>(schema: T, shown: Record<string, unknown>): T {
  return schema.meta({
    anyOf: undefined,
    type: undefined,
    items: undefined,
    minimum: undefined,
    maximum: undefined,
    ...shown,
  });
}

/** A whole number that models sometimes send as null. */
export const optionalInt = shownAs(z.number().int().nullish(), { type: "integer" });

/** A 1-based line number that models sometimes send as null. */
export const optionalLine = optionalInt;

/**
 * Drops the `$schema` line zod puts at the top of a tool's JSON schema: providers ignore it, and it cost
 * about 14 tokens per tool on every request. The schema validates as before (zod's `.meta()` only adds to
 * what its JSON schema says). Tools whose schema is not a zod schema are left as they are.
 *
 * @example
 * withoutSchemaDialect(askClarificationTool); // its parameters start {"type":"object",...}
 */
export function withoutSchemaDialect(tool: StructuredToolInterface): void {
  const schema = tool.schema as unknown;
  if (!(schema instanceof z.ZodType)) return;
  (tool as { schema: unknown }).schema = schema.meta({ ...schema.meta(), $schema: undefined });
}
