/**
 * The deterministic half of a memory update: the model proposes, this decides. It runs under the store's
 * lock against the memory as it is on disk at that moment (not as it was when the model was asked), so an
 * update that finished in another process meanwhile is kept. The write gate is here and not in the
 * prompt: facts below the confidence threshold are dropped, restatements of a known fact do not add a
 * second copy, a stored fact counts as confirmed by the user only when the user's words showed a
 * confirmation, and the fact list never grows past `maxFacts`.
 */
import { randomUUID } from "node:crypto";
import {
  FACT_CATEGORIES,
  HISTORY_SECTIONS,
  type Memory,
  type MemoryFact,
  type MemorySection,
  USER_SECTIONS,
} from "./memory-schema.js";
import type { MemoryUpdate } from "./parse-update.js";
import { capFacts } from "./fact-retention.js";
import type { MemorySignal } from "./memory-signals.js";

export { capFacts };

/** Limits and provenance for one update. */
export interface ApplyUpdateOptions {
  /** Thread the conversation came from; stored as each new fact's `source`. */
  threadId: string;
  /** Facts with a lower confidence are dropped (DeerFlow: 0.7). */
  factConfidenceThreshold: number;
  /** Most facts kept (DeerFlow: 100); the least confident and least used are evicted (`capFacts`). */
  maxFacts: number;
  /**
   * What the user's words showed (`detectMemorySignals`). `factsToReinforce` is applied only with
   * "reinforcement": the model alone may not decide that the user confirmed something.
   */
  signals?: readonly MemorySignal[];
  /** Clock for `createdAt` / `updatedAt` (tests pin it). */
  now?: Date;
  /** Id generator for new facts (default `fact_` + 8 random hex digits). */
  newFactId?: () => string;
}

/** What an update changed. */
export interface AppliedUpdate {
  /** The new memory (the input object itself when nothing changed). */
  memory: Memory;
  changed: boolean;
  added: MemoryFact[];
  removed: string[];
  /** Ids of stored facts the user confirmed (their `lastConfirmedAt` and `confirmationCount` moved on). */
  reinforced: string[];
  sectionsUpdated: string[];
}

/** The key two facts are compared by: case, spacing and final punctuation do not make a new fact. */
export function normaliseFactContent(content: string): string {
  return content
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\s.!。]+$/u, "");
}

function normaliseCategory(category: string | null | undefined): string {
  const value = (category ?? "").trim().toLowerCase();
  return (FACT_CATEGORIES as readonly string[]).includes(value) ? value : "context";
}

function applySection(
  current: MemorySection,
  proposed: { summary?: string | null; shouldUpdate?: boolean | null } | null | undefined,
  now: string,
): MemorySection | undefined {
  const summary = proposed?.summary?.trim();
  if (!proposed?.shouldUpdate || !summary || summary === current.summary) return undefined;
  return { summary, updatedAt: now };
}

/** Why `addManualFact` did not store a fact: the same content is known, or every kept fact outranks it. */
export type ManualFactRefusal =
  | { reason: "duplicate"; existing: MemoryFact }
  | { reason: "outranked"; maxFacts: number };

/**
 * Adds a fact the user typed (settings page, `POST /memory/facts`). Content equal to a known fact once
 * case, spacing and final punctuation are ignored is refused rather than stored twice. A full memory makes
 * room the way the updater does: the fact with the weakest standing goes (see `capFacts`); when that would be the new
 * fact itself, nothing changes and the refusal says so. Pure: the input is not modified.
 *
 * @example
 * addManualFact(memory, fact, 2); // memory held 0.95 and 0.2: { memory } with 0.95 and `fact`
 * addManualFact(memory, { ...fact, content: " PREFERS dark mode. " }, 2); // { refused: { reason: "duplicate", existing } }
 */
export function addManualFact(
  memory: Memory,
  fact: MemoryFact,
  maxFacts: number,
): { memory: Memory; removed: MemoryFact[] } | { refused: ManualFactRefusal } {
  const key = normaliseFactContent(fact.content);
  const existing = memory.facts.find((known) => normaliseFactContent(known.content) === key);
  if (existing) return { refused: { reason: "duplicate", existing } };
  const facts = capFacts([...memory.facts, fact], maxFacts, new Date(fact.createdAt || Date.now()));
  if (!facts.includes(fact)) return { refused: { reason: "outranked", maxFacts } };
  const removed = memory.facts.filter((known) => !facts.includes(known));
  return { memory: { ...memory, facts, lastUpdated: fact.createdAt || memory.lastUpdated }, removed };
}

/**
 * Applies a parsed model update to `memory` and returns the new memory with a summary of the changes.
 * Pure: the input is not modified.
 */
export function applyMemoryUpdate(memory: Memory, update: MemoryUpdate, options: ApplyUpdateOptions): AppliedUpdate {
  const now = (options.now ?? new Date()).toISOString();
  const newFactId = options.newFactId ?? (() => `fact_${randomUUID().replace(/-/g, "").slice(0, 8)}`);
  const next: Memory = structuredClone(memory);
  const sectionsUpdated: string[] = [];

  for (const key of USER_SECTIONS) {
    const section = applySection(next.userContext[key], update.user?.[key], now);
    if (!section) continue;
    next.userContext[key] = section;
    sectionsUpdated.push(key);
  }
  for (const key of HISTORY_SECTIONS) {
    const section = applySection(next.history[key], update.history?.[key], now);
    if (!section) continue;
    next.history[key] = section;
    sectionsUpdated.push(key);
  }

  const removeIds = new Set(
    (update.factsToRemove ?? []).map((entry) => (typeof entry === "string" ? entry : entry.id)),
  );
  const removed = next.facts.filter((fact) => removeIds.has(fact.id)).map((fact) => fact.id);
  let facts = next.facts.filter((fact) => !removeIds.has(fact.id));

  const reinforced: string[] = [];
  if (options.signals?.includes("reinforcement")) {
    const confirmedIds = new Set(
      (update.factsToReinforce ?? []).map((entry) => (typeof entry === "string" ? entry : entry.id)),
    );
    for (const fact of facts) {
      if (!confirmedIds.has(fact.id)) continue;
      fact.lastConfirmedAt = now;
      fact.confirmationCount = (fact.confirmationCount ?? 0) + 1;
      reinforced.push(fact.id);
    }
  }

  const byContent = new Map(facts.map((fact) => [normaliseFactContent(fact.content), fact]));
  const added: MemoryFact[] = [];
  let raised = false;
  for (const proposed of update.newFacts ?? []) {
    const content = proposed.content.trim();
    const confidence = Math.min(1, Math.max(0, proposed.confidence));
    if (!content || !Number.isFinite(proposed.confidence) || confidence < options.factConfidenceThreshold) continue;
    const known = byContent.get(normaliseFactContent(content));
    if (known) {
      // A restatement raises the known fact's confidence instead of adding a second copy.
      raised ||= confidence > known.confidence;
      known.confidence = Math.max(known.confidence, confidence);
      continue;
    }
    const category = normaliseCategory(proposed.category);
    const sourceError = category === "correction" ? proposed.sourceError?.trim() : undefined;
    const fact: MemoryFact = {
      id: newFactId(),
      content,
      category,
      confidence,
      createdAt: now,
      source: options.threadId,
      ...(sourceError ? { sourceError } : {}),
    };
    byContent.set(normaliseFactContent(content), fact);
    facts.push(fact);
    added.push(fact);
  }

  facts = capFacts(facts, options.maxFacts, options.now ?? new Date());
  const keptIds = new Set(facts.map((fact) => fact.id));
  next.facts = facts;
  const changed =
    sectionsUpdated.length > 0 ||
    removed.length > 0 ||
    added.length > 0 ||
    reinforced.length > 0 ||
    raised ||
    facts.length !== memory.facts.length;
  if (!changed) return { memory, changed, added: [], removed: [], reinforced: [], sectionsUpdated: [] };
  next.lastUpdated = now;
  return {
    memory: next,
    changed,
    added: added.filter((fact) => keptIds.has(fact.id)),
    removed,
    reinforced: reinforced.filter((id) => keptIds.has(id)),
    sectionsUpdated,
  };
}
