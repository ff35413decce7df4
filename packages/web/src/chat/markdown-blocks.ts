/**
 * Splits Markdown into top-level blocks at blank lines outside fenced code and `$$` math, so a
 * streaming answer re-parses only its last block per token instead of the whole text (which made
 * each token cost more than the one before). Used only while a message streams: a finished message
 * is parsed whole, so loose lists and reference links render exactly.
 */

/** The blocks of `text`, joined back they give the same text (up to the blank lines between them). */
export function markdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  let math = false;
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    const opener = /^(`{3,}|~{3,})/.exec(trimmed)?.[1];
    if (fence) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length && trimmed === opener) fence = undefined;
    } else if (opener) fence = opener;
    else if (trimmed.startsWith("$$") && !(trimmed.length > 2 && trimmed.endsWith("$$"))) math = !math;
    if (!fence && !math && trimmed === "" && current.length > 0 && !opener) {
      blocks.push(current.join("\n"));
      current = [];
      continue;
    }
    if (trimmed === "" && current.length === 0) continue;
    current.push(line);
  }
  if (current.length > 0) blocks.push(current.join("\n"));
  return blocks;
}
