/**
 * Turns the memory model's reply into a checked update. Models wrap JSON in fences, add a sentence
 * before it, emit `null` for sections they leave alone, or answer with something else entirely; the first
 * three are accepted, anything that is not the expected shape is refused as a whole so a confused reply
 * can never half-apply to memory.
 */
import { z } from "zod";

const SectionUpdate = z
  .object({ summary: z.string().nullish(), shouldUpdate: z.boolean().nullish() })
  .nullish();

const NewFact = z.object({
  content: z.string(),
  category: z.string().nullish(),
  confidence: z.number(),
});

/** The update the model returns (DeerFlow's shape). Every part is optional: missing means no change. */
export const MemoryUpdate = z.object({
  user: z
    .object({ workContext: SectionUpdate, personalContext: SectionUpdate, topOfMind: SectionUpdate })
    .nullish(),
  history: z
    .object({ recentMonths: SectionUpdate, earlierContext: SectionUpdate, longTermBackground: SectionUpdate })
    .nullish(),
  newFacts: z.array(NewFact).nullish(),
  factsToRemove: z.array(z.union([z.object({ id: z.string() }), z.string()])).nullish(),
});
export type MemoryUpdate = z.infer<typeof MemoryUpdate>;

const KNOWN_KEYS = new Set(Object.keys(MemoryUpdate.shape));

/** The JSON object in a reply: the content of the first fenced block if any, else from the first "{" to the last "}". */
export function extractJsonObject(text: string): string | undefined {
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(text);
  const candidate = fenced ? fenced[1] : text;
  const start = candidate.indexOf("{");
  const end = candidate.lastIndexOf("}");
  return start >= 0 && end > start ? candidate.slice(start, end + 1) : undefined;
}

/**
 * Parses a model reply into a `MemoryUpdate`, or says why it cannot be used.
 *
 * @example
 * parseMemoryUpdate('```json\n{"newFacts":[{"content":"Prefers TypeScript","category":"preference","confidence":0.9}]}\n```');
 * // { ok: true, update: { newFacts: [...] } }
 */
export function parseMemoryUpdate(text: string): { ok: true; update: MemoryUpdate } | { ok: false; reason: string } {
  const json = extractJsonObject(text);
  if (json === undefined) return { ok: false, reason: "the reply contains no JSON object" };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    return { ok: false, reason: `the reply is not valid JSON (${(error as Error).message})` };
  }
  const keys = raw && typeof raw === "object" && !Array.isArray(raw) ? Object.keys(raw) : [];
  if (keys.length > 0 && !keys.some((key) => KNOWN_KEYS.has(key))) {
    return { ok: false, reason: `the reply has none of the expected keys (got ${keys.slice(0, 5).join(", ")})` };
  }
  const result = MemoryUpdate.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    return { ok: false, reason: `the reply has the wrong shape at ${issue.path.join(".") || "(root)"}: ${issue.message}` };
  }
  return { ok: true, update: result.data };
}
