/**
 * Turns the memory model's reply into a checked update. Models wrap JSON in fences, add a sentence
 * before it, quote some JSON from the conversation before the real update, emit `null` for sections they
 * leave alone, or answer with something else entirely; the first four are accepted, anything that is not
 * the expected shape is refused as a whole so a confused reply can never half-apply to memory.
 */
import { z } from "zod";

const SectionUpdate = z.object({ summary: z.string().nullish(), shouldUpdate: z.boolean().nullish() }).nullish();

const NewFact = z.object({
  content: z.string(),
  category: z.string().nullish(),
  confidence: z.number(),
  /** For a correction: what the assistant had got wrong. */
  sourceError: z.string().nullish(),
});

/** A stored fact the user explicitly confirmed in the conversation. */
const Reinforcement = z.union([z.object({ id: z.string(), reason: z.string().nullish() }), z.string()]);

/** The update the model returns (DeerFlow's shape). Every part is optional: missing means no change. */
export const MemoryUpdate = z.object({
  user: z.object({ workContext: SectionUpdate, personalContext: SectionUpdate, topOfMind: SectionUpdate }).nullish(),
  history: z
    .object({ recentMonths: SectionUpdate, earlierContext: SectionUpdate, longTermBackground: SectionUpdate })
    .nullish(),
  newFacts: z.array(NewFact).nullish(),
  factsToRemove: z.array(z.union([z.object({ id: z.string() }), z.string()])).nullish(),
  factsToReinforce: z.array(Reinforcement).nullish(),
});
export type MemoryUpdate = z.infer<typeof MemoryUpdate>;

const KNOWN_KEYS = new Set(Object.keys(MemoryUpdate.shape));

/**
 * Every JSON object in a reply, in order: the contents of each fenced block, and each balanced `{...}`
 * span outside the fences (braces inside JSON strings are respected).
 */
export function jsonObjectCandidates(text: string): string[] {
  const found: { at: number; json: string }[] = [];
  const fence = /```[A-Za-z]*[ \t]*\n?([\s\S]*?)```/g;
  let outside = "";
  let last = 0;
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    outside += text.slice(last, match.index).padEnd(match.index - last + match[0].length, " ");
    last = match.index + match[0].length;
    for (const span of balancedObjects(match[1]!)) found.push({ at: match.index + span.at, json: span.json });
  }
  outside += text.slice(last);
  found.push(...balancedObjects(outside));
  return found.sort((a, b) => a.at - b.at).map((entry) => entry.json);
}

/** Top-level balanced `{...}` spans (and a trailing unclosed one), scanning once: linear in the text. */
function balancedObjects(text: string): { at: number; json: string }[] {
  const found: { at: number; json: string }[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"' && depth > 0) inString = true;
    else if (char === "{") {
      if (depth === 0) start = index;
      depth += 1;
    } else if (char === "}" && depth > 0) {
      depth -= 1;
      if (depth === 0) found.push({ at: start, json: text.slice(start, index + 1) });
    }
  }
  // A cut-off object is kept too, so the reason given is "not valid JSON" rather than "no JSON".
  if (depth > 0) found.push({ at: start, json: text.slice(start) });
  return found;
}

/** The first JSON object in a reply (kept for callers that want one candidate). */
export function extractJsonObject(text: string): string | undefined {
  return jsonObjectCandidates(text)[0];
}

/**
 * Parses a model reply into a `MemoryUpdate`, or says why it cannot be used.
 *
 * @example
 * parseMemoryUpdate('```json\n{"newFacts":[{"content":"Prefers TypeScript","category":"preference","confidence":0.9}]}\n```');
 * // { ok: true, update: { newFacts: [...] } }
 */
export function parseMemoryUpdate(text: string): { ok: true; update: MemoryUpdate } | { ok: false; reason: string } {
  const candidates = jsonObjectCandidates(text);
  if (candidates.length === 0) return { ok: false, reason: "the reply contains no JSON object" };
  // The update is the last candidate that is one; quoted JSON before it is skipped.
  let failure: { ok: false; reason: string } | undefined;
  let empty: { ok: true; update: MemoryUpdate } | undefined;
  for (const candidate of [...candidates].reverse()) {
    const parsed = parseCandidate(candidate);
    if (parsed.ok && Object.keys(parsed.update).length > 0) return parsed;
    if (parsed.ok) empty ??= parsed;
    else failure ??= parsed;
  }
  return empty ?? failure!;
}

function parseCandidate(json: string): { ok: true; update: MemoryUpdate } | { ok: false; reason: string } {
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
    return {
      ok: false,
      reason: `the reply has the wrong shape at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? result.error.message}`,
    };
  }
  return { ok: true, update: result.data };
}
