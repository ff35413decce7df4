/**
 * Memory as a person reads it in a terminal (`deerflow memory show`): every summary and every fact with
 * its id, so a wrong fact can be removed with `deerflow memory forget <id>`. Unlike the prompt block this
 * shows everything, unescaped and unbudgeted.
 */
import { HISTORY_SECTIONS, type Memory, USER_SECTIONS, isMemoryEmpty } from "./memory-schema.js";

const LABELS: Record<string, string> = {
  workContext: "Work",
  personalContext: "Personal",
  topOfMind: "Current focus",
  recentMonths: "Recent months",
  earlierContext: "Earlier",
  longTermBackground: "Background",
};

/**
 * Renders memory for a terminal. `location` (the file path) is named in the heading.
 *
 * @example
 * console.log(formatMemoryForDisplay(store.load(), store.path));
 */
export function formatMemoryForDisplay(memory: Memory, location?: string): string {
  const where = location ? ` (${location})` : "";
  if (isMemoryEmpty(memory)) return `Memory is empty${where}.`;
  const lines = [`Memory${where}${memory.lastUpdated ? `, last updated ${memory.lastUpdated}` : ""}`];
  const summaries = (title: string, entries: [string, { summary: string; updatedAt: string }][]) => {
    const filled = entries.filter(([, section]) => section.summary.trim());
    if (filled.length === 0) return;
    lines.push("", title);
    for (const [key, section] of filled) lines.push(`  ${LABELS[key]}: ${section.summary}`);
  };
  summaries(
    "User context",
    USER_SECTIONS.map((key) => [key, memory.userContext[key]]),
  );
  summaries(
    "History",
    HISTORY_SECTIONS.map((key) => [key, memory.history[key]]),
  );
  if (memory.facts.length > 0) {
    lines.push("", `Facts (${memory.facts.length})`);
    for (const fact of memory.facts) {
      const origin = [
        fact.source && fact.source !== "unknown" ? `from ${fact.source}` : "",
        fact.createdAt.slice(0, 10),
        fact.confirmationCount
          ? `confirmed ${fact.confirmationCount}x${fact.lastConfirmedAt ? `, last ${fact.lastConfirmedAt.slice(0, 10)}` : ""}`
          : "",
      ]
        .filter(Boolean)
        .join(", ");
      lines.push(
        `  ${fact.id}  [${fact.category} ${fact.confidence.toFixed(2)}]  ${fact.content}${origin ? `  (${origin})` : ""}`,
      );
      if (fact.sourceError) lines.push(`      was wrong: ${fact.sourceError}`);
    }
  }
  return lines.join("\n");
}
