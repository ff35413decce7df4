/**
 * Text helpers shared by the prompt, memory, subagents, summarization and durable context: escaping
 * untrusted text before it is framed inside tagged sections (`<memory>`, `<skill>`, durable context),
 * and bounding text to a character or token budget by keeping its head and tail (the start states the
 * task, the end holds the latest state; the middle is what we can lose).
 */

const ELLIPSIS = "\n...\n";

/**
 * Escapes `&`, `<` and `>` so text cannot open or close a tag of the section it is placed in
 * (e.g. a tool result containing `</durable_context_data>`). Quotes are left alone.
 */
export function escapeData(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Collapses every run of whitespace (newlines included) to one space, so a value stays on its line. */
export function collapseWhitespace(text: string): string {
  return text.split(/\s+/).filter(Boolean).join(" ");
}

/**
 * Caps `text` at `maxChars` characters: two thirds from the head, the rest from the tail, joined by a
 * `...` line. Text within the cap is returned unchanged.
 */
export function boundText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= ELLIPSIS.length) return text.slice(0, Math.max(0, maxChars));
  const room = maxChars - ELLIPSIS.length;
  const head = Math.floor((room * 2) / 3);
  const tail = room - head;
  return `${text.slice(0, head)}${ELLIPSIS}${tail > 0 ? text.slice(-tail) : ""}`;
}

/**
 * Caps `text` at `maxTokens` as measured by `countText`, with the same head/tail shape as
 * {@link boundText}. Binary-searches the character budget, so it calls `countText` O(log n) times.
 */
export function boundTextTokens(text: string, maxTokens: number, countText: (text: string) => number): string {
  if (maxTokens <= 0) return "";
  if (countText(text) <= maxTokens) return text;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (countText(boundText(text, mid)) <= maxTokens) low = mid;
    else high = mid - 1;
  }
  return boundText(text, low);
}
