/**
 * The shape of `memory.json`, checked with zod wherever the file crosses a trust boundary (read from disk,
 * imported by the user). Memory is injected into every system prompt, so what does not match this schema
 * is never used as it is: on read, one malformed fact or summary is skipped with a warning (a hand edit
 * gone wrong must not cost every other fact); a file that is not a memory document at all is moved aside.
 * An import is checked strictly and refused as a whole.
 *
 * The layout is DeerFlow's memory document with `user` spelled `userContext`. A DeerFlow export (key
 * `user`, fact `source` as `{ threadId }`) is accepted on read and normalised to this shape.
 */
import { z } from "zod";

/**
 * A summary written as something other than a string (a hand edit, another tool's export: `12345`,
 * `{ "team": "infra" }`) is kept as its text rather than dropped; `null` means no summary.
 */
function summaryText(value: unknown): unknown {
  if (value === null) return undefined;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (typeof value === "object") return JSON.stringify(value);
  return value;
}

/** One summarised aspect of the user, with when it was last rewritten (ISO 8601, "" when never). */
export const MemorySection = z.object({
  summary: z.preprocess(summaryText, z.string().default("")),
  updatedAt: z.string().default(""),
});
export type MemorySection = z.infer<typeof MemorySection>;

const section = MemorySection.default({ summary: "", updatedAt: "" });

/** Who the user is: their work, their personal context, and what occupies them right now. */
export const UserContext = z.object({
  workContext: section,
  personalContext: section,
  topOfMind: section,
});
export type UserContext = z.infer<typeof UserContext>;

/** What happened over time: recent months, earlier context, long-term background. */
export const MemoryHistory = z.object({
  recentMonths: section,
  earlierContext: section,
  longTermBackground: section,
});
export type MemoryHistory = z.infer<typeof MemoryHistory>;

/** Fact categories the updater asks for; other strings read from disk are kept as they are. */
export const FACT_CATEGORIES = ["preference", "knowledge", "context", "behavior", "goal", "correction"] as const;

/**
 * One atomic thing learned about the user. `source` is the thread id it came from ("import", "manual", ...).
 * `sourceError`, `lastConfirmedAt` and `confirmationCount` came later and are optional, so older files load
 * unchanged and older readers drop them without harm.
 */
export const MemoryFact = z.object({
  id: z.string().min(1),
  content: z.string().min(1),
  category: z.string().min(1).default("context"),
  confidence: z.number().min(0).max(1),
  createdAt: z.string().default(""),
  source: z.preprocess(
    (value) =>
      value && typeof value === "object" && "threadId" in value
        ? ((value as { threadId: unknown }).threadId ?? "unknown")
        : value,
    z.string().default("unknown"),
  ),
  /** For a correction: what the assistant got wrong, so it is not repeated ("used pip install"). */
  sourceError: z.string().min(1).optional(),
  /** When the user last explicitly confirmed the fact (ISO 8601); absent: never. */
  lastConfirmedAt: z.string().min(1).optional(),
  /** How often the user explicitly confirmed the fact; absent: never. */
  confirmationCount: z.number().int().nonnegative().optional(),
});
export type MemoryFact = z.infer<typeof MemoryFact>;

/** Accepts DeerFlow's `user` key for `userContext`, so its exports can be imported. */
function normaliseDocument(value: unknown): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  if (record.userContext === undefined && record.user !== undefined) {
    const { user, ...rest } = record;
    return { ...rest, userContext: user };
  }
  return value;
}

/** The whole memory document. `userContext`, `history` and `facts` must be present; sections may be partial. */
export const Memory = z.preprocess(
  normaliseDocument,
  z.object({
    version: z.string().default("1.0"),
    lastUpdated: z.string().default(""),
    userContext: UserContext,
    history: MemoryHistory,
    facts: z.array(MemoryFact),
  }),
);
export type Memory = z.infer<typeof Memory>;

/** Names of the user-context sections, in display order. */
export const USER_SECTIONS = ["workContext", "personalContext", "topOfMind"] as const;
/** Names of the history sections, in display order. */
export const HISTORY_SECTIONS = ["recentMonths", "earlierContext", "longTermBackground"] as const;

/** A fresh, empty memory document. */
export function emptyMemory(): Memory {
  const blank = (): MemorySection => ({ summary: "", updatedAt: "" });
  return {
    version: "1.0",
    lastUpdated: "",
    userContext: { workContext: blank(), personalContext: blank(), topOfMind: blank() },
    history: { recentMonths: blank(), earlierContext: blank(), longTermBackground: blank() },
    facts: [],
  };
}

/** True when the memory holds no summary and no fact (nothing worth injecting or showing). */
export function isMemoryEmpty(memory: Memory): boolean {
  const summaries = [
    ...USER_SECTIONS.map((key) => memory.userContext[key].summary),
    ...HISTORY_SECTIONS.map((key) => memory.history[key].summary),
  ];
  return memory.facts.length === 0 && summaries.every((summary) => summary.trim() === "");
}

/**
 * Parses JSON text as a memory document. Returns the memory or a one-line reason it was refused
 * (invalid JSON, or the first schema problems with their paths).
 */
export function parseMemoryText(text: string): { ok: true; memory: Memory } | { ok: false; reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not valid JSON (${(error as Error).message})` };
  }
  const result = Memory.safeParse(raw);
  if (result.success) return { ok: true, memory: result.data };
  const issues = result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
  return { ok: false, reason: `not a memory document (${issues})` };
}

/**
 * Reads memory from disk leniently: the document must be JSON with at least one of `userContext`
 * (or `user`), `history` and `facts`; each summary and fact is then checked on its own, and one that
 * does not fit is left out and named in `skipped` (e.g. `facts[3] (id fact_x): confidence: ...`).
 *
 * @example
 * parseStoredMemory('{"facts":[{"id":"a","content":"x","confidence":7}]}');
 * // { ok: true, memory: <empty but for nothing>, skipped: ["facts[0] (id a): confidence: Too big: ..."] }
 */
export function parseStoredMemory(
  text: string,
): { ok: true; memory: Memory; skipped: string[] } | { ok: false; reason: string } {
  const strict = parseMemoryText(text);
  if (strict.ok) return { ...strict, skipped: [] };
  let raw: unknown;
  try {
    raw = normaliseDocument(JSON.parse(text));
  } catch (error) {
    return { ok: false, reason: `not valid JSON (${(error as Error).message})` };
  }
  const record = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  if (!record || !["userContext", "history", "facts"].some((key) => key in record)) return strict;
  const memory = emptyMemory();
  const skipped: string[] = [];
  const describe = (issues: readonly z.core.$ZodIssue[]) =>
    issues
      .slice(0, 2)
      .map((issue) => `${issue.path.join(".") || "value"}: ${issue.message}`)
      .join("; ");
  if (typeof record.version === "string") memory.version = record.version;
  if (typeof record.lastUpdated === "string") memory.lastUpdated = record.lastUpdated;
  const sections = (group: "userContext" | "history", keys: readonly string[]) => {
    const value = record[group];
    if (value === undefined) return;
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      skipped.push(`${group}: not an object`);
      return;
    }
    for (const key of keys) {
      const parsed = section.safeParse((value as Record<string, unknown>)[key]);
      if (parsed.success) (memory[group] as Record<string, MemorySection>)[key] = parsed.data;
      else skipped.push(`${group}.${key}: ${describe(parsed.error.issues)}`);
    }
  };
  sections("userContext", USER_SECTIONS);
  sections("history", HISTORY_SECTIONS);
  if (Array.isArray(record.facts)) {
    record.facts.forEach((fact, index) => {
      const parsed = MemoryFact.safeParse(fact);
      if (parsed.success) memory.facts.push(parsed.data);
      else {
        const id =
          fact && typeof fact === "object" && typeof (fact as { id?: unknown }).id === "string"
            ? ` (id ${(fact as { id: string }).id})`
            : "";
        skipped.push(`facts[${index}]${id}: ${describe(parsed.error.issues)}`);
      }
    });
  } else if (record.facts !== undefined) {
    skipped.push("facts: not a list");
  }
  return { ok: true, memory, skipped };
}
