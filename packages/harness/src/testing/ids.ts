/**
 * Unique ids for everything the fakes emit. The `messages` reducer replaces a message that has the same
 * id as an earlier one (ts-ecosystem R7), so a fake that reuses ids silently rewrites history. A random
 * per-process tag keeps ids distinct even across processes sharing one checkpoint file.
 */
import { randomBytes } from "node:crypto";

const processTag = randomBytes(3).toString("hex");
let counter = 0;

/** Returns `${prefix}${tag}-${n}`, unique within this process and very likely across processes. */
export function nextId(prefix: string): string {
  counter += 1;
  return `${prefix}${processTag}-${counter}`;
}

/** First `max` characters of `text` on one line, for error messages. */
export function preview(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
