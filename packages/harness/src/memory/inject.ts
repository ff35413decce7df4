/**
 * Renders memory for the system prompt. Two risks shape it: size (memory grows, the prompt must not, so
 * the text stays within `maxTokens`, dropping the least important items first and saying so), and
 * injection (stored text came from conversations, so it is flattened to one line per item and
 * HTML-escaped: a fact reading `</memory>` or starting a fake "Key Facts:" section stays plain text).
 * Facts of the guaranteed categories (corrections, by default) are the exception to "least important
 * first": a correction the agent cannot see is a mistake it repeats, so they come first among the facts,
 * from a budget of their own, and are never cut for the rest.
 */
import { type Memory, type MemoryFact, isMemoryEmpty } from "./memory-schema.js";
import { escapeData } from "../messages/text.js";
import type { TextTokenCounter } from "../model/tokens.js";
import { MEMORY_DEFAULTS } from "../config/defaults.js";

/** A fast estimate (4 characters per token), good enough for a budget. */
export function approximateTokenCount(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Options of `formatMemoryForInjection`. */
export interface MemoryInjectionOptions {
  /** Budget for the text inside the `<memory>` block (DeerFlow: 2000). */
  maxTokens: number;
  /** Defaults to `approximateTokenCount`. */
  tokenCounter?: TextTokenCounter;
  /** Most facts shown, highest confidence first (default 15); guaranteed facts come on top. */
  maxFacts?: number;
  /** Categories whose facts are always shown, first among the facts (default `["correction"]`). */
  guaranteedCategories?: readonly string[];
  /** Budget of the guaranteed facts, on top of `maxTokens` (default 500). */
  guaranteedTokens?: number;
}

interface Section {
  title: string;
  items: string[];
}

const FACTS_TITLE = "Key Facts:";

const clean = (text: string) => escapeData(text.replace(/\s+/g, " ").trim());

/** Facts by confidence (ties: newest first), at most `limit`. */
export function topFacts(facts: readonly MemoryFact[], limit: number): MemoryFact[] {
  return [...facts]
    .sort((a, b) => b.confidence - a.confidence || b.createdAt.localeCompare(a.createdAt))
    .slice(0, limit);
}

/** One fact as a prompt line; a correction names the mistake it is about. */
function factLine(fact: MemoryFact): string {
  const avoid = fact.category === "correction" && fact.sourceError?.trim() ? ` (not: ${clean(fact.sourceError)})` : "";
  return `- [${clean(fact.category)} | ${fact.confidence.toFixed(2)}] ${clean(fact.content)}${avoid}`;
}

/**
 * The lines of the guaranteed facts (by confidence) that fit `budget` together, and the rest of the
 * facts. Stops at the first line that does not fit, so a less confident correction never displaces a
 * more confident one; a guaranteed fact left out competes with the others.
 */
function partitionFacts(
  facts: readonly MemoryFact[],
  categories: ReadonlySet<string>,
  budget: number,
  count: TextTokenCounter,
): { pinned: string[]; rest: MemoryFact[] } {
  const pinned: string[] = [];
  const rest: MemoryFact[] = [];
  let open = true;
  for (const fact of topFacts(facts, facts.length)) {
    if (open && categories.has(fact.category.trim())) {
      const line = factLine(fact);
      if (count([...pinned, line].join("\n")) <= budget) {
        pinned.push(line);
        continue;
      }
      open = false;
    }
    rest.push(fact);
  }
  return { pinned, rest };
}

function sectionsOf(
  memory: Memory,
  pinned: readonly string[],
  rest: readonly MemoryFact[],
  maxFacts: number,
): Section[] {
  const line = (label: string, summary: string) => (summary.trim() ? `- ${label}: ${clean(summary)}` : "");
  const { userContext: user, history } = memory;
  const sections: Section[] = [
    {
      title: "User Context:",
      items: [
        line("Work", user.workContext.summary),
        line("Personal", user.personalContext.summary),
        line("Current Focus", user.topOfMind.summary),
      ],
    },
    {
      title: "Recent History:",
      items: [
        line("Recent months", history.recentMonths.summary),
        line("Earlier", history.earlierContext.summary),
        line("Background", history.longTermBackground.summary),
      ],
    },
    { title: FACTS_TITLE, items: [...pinned, ...topFacts(rest, maxFacts).map(factLine)] },
  ];
  return sections
    .map((section) => ({ ...section, items: section.items.filter(Boolean) }))
    .filter((section) => section.items.length > 0);
}

function render(sections: readonly Section[]): string {
  return sections.map((section) => [section.title, ...section.items].join("\n")).join("\n\n");
}

function truncationNote(maxTokens: number, omitted: number, shortened: boolean): string {
  const parts = [omitted > 0 ? `${omitted} more item(s) left out` : "", shortened ? "one item shortened" : ""].filter(
    Boolean,
  );
  return `(Memory truncated to fit ${maxTokens} tokens: ${parts.join(", ")}.)`;
}

/** The longest prefix of `item` (ending in "…") for which `fits` holds, or undefined when not even a short one fits. */
function shorten(item: string, fits: (candidate: string) => boolean): string | undefined {
  let low = 0;
  let high = item.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(`${item.slice(0, mid)}…`)) low = mid;
    else high = mid - 1;
  }
  return low >= 24 ? `${item.slice(0, low)}…` : undefined;
}

/**
 * The text of the memory block: User Context, Recent History, and Key Facts (the guaranteed ones within
 * `guaranteedTokens`, then the top `maxFacts` of the rest by confidence), escaped, within `maxTokens`
 * plus what the guaranteed facts take. When over budget, the guaranteed facts stay, the other items are
 * kept in order until the budget is used, the first one that does not fit may be shortened, and a
 * visible note says what was left out. Returns "" for empty memory.
 *
 * @example
 * formatMemoryForInjection(memory, { maxTokens: 2000 });
 * // "User Context:\n- Work: Backend engineer at Acme.\n\nKey Facts:\n- [preference | 0.95] Prefers TypeScript"
 */
export function formatMemoryForInjection(memory: Memory, options: MemoryInjectionOptions): string {
  if (isMemoryEmpty(memory) || options.maxTokens <= 0) return "";
  const count = options.tokenCounter ?? approximateTokenCount;
  const categories = new Set(options.guaranteedCategories ?? MEMORY_DEFAULTS.guaranteed_categories);
  const { pinned, rest } = partitionFacts(
    memory.facts,
    categories,
    options.guaranteedTokens ?? MEMORY_DEFAULTS.guaranteed_token_budget,
    count,
  );
  const budget = options.maxTokens + (pinned.length > 0 ? count(pinned.join("\n")) : 0);
  const sections = sectionsOf(memory, pinned, rest, options.maxFacts ?? 15);
  const full = render(sections);
  if (count(full) <= budget) return full;

  // The guaranteed facts are in every candidate, whichever item the budget runs out on.
  const withPinned = (candidate: Section[]) =>
    pinned.length === 0 || candidate.some((section) => section.title === FACTS_TITLE)
      ? candidate
      : [...candidate, { title: FACTS_TITLE, items: [...pinned] }];
  const totalItems = sections.reduce((sum, section) => sum + section.items.length, 0);
  const noteBudget = count(`\n\n${truncationNote(options.maxTokens, totalItems, true)}`);
  const fits = (candidate: Section[]) => count(render(withPinned(candidate))) + noteBudget <= budget;
  const kept: Section[] = [];
  let included = pinned.length;
  let shortened = false;
  outer: for (const section of sections) {
    const isFacts = section.title === FACTS_TITLE;
    const target: Section = { title: section.title, items: isFacts ? [...pinned] : [] };
    for (const item of isFacts ? section.items.slice(pinned.length) : section.items) {
      const withItem = (text: string) => [...kept, { ...target, items: [...target.items, text] }];
      if (fits(withItem(item))) {
        target.items.push(item);
        included += 1;
        continue;
      }
      const short = shorten(item, (text) => fits(withItem(text)));
      if (short) {
        target.items.push(short);
        included += 1;
        shortened = true;
      }
      if (target.items.length > 0) kept.push(target);
      break outer;
    }
    kept.push(target);
  }
  const note = truncationNote(options.maxTokens, totalItems - included, shortened);
  const body = render(withPinned(kept.filter((section) => section.items.length > 0)));
  return body ? `${body}\n\n${note}` : note;
}

/**
 * The whole `<memory>` block for the system prompt, or "" when there is nothing to inject.
 *
 * @example
 * systemPrompt += renderMemoryBlock(store.load(), { maxTokens: 2000 });
 */
export function renderMemoryBlock(memory: Memory, options: MemoryInjectionOptions): string {
  const text = formatMemoryForInjection(memory, options);
  return text ? `<memory>\n${text}\n</memory>` : "";
}
