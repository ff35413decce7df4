/**
 * Arguments shared by the sandbox tools. DeerFlow puts a `description` first in every sandbox tool so
 * the UI and logs can say why a command or file operation happened; the model must fill it.
 */
import { z } from "zod";

/** The leading `description` argument of every sandbox tool. */
export const descriptionArg = z
  .string()
  .describe("In a few words, why you are calling this tool. Always give this argument first.");

/** A 1-based line number that models sometimes send as null. */
export const optionalLine = z.number().int().nullish();
