/**
 * Splits Markdown into top-level blocks at blank lines outside fenced code and `$$` math, so a
 * streaming answer re-parses only its last block per token instead of the whole text (which made
 * each token cost more than the one before). Used only while a message streams: a finished message
 * is parsed whole, so loose lists and reference links render exactly.
 *
 * A block longer than `MAX_PIECE` (a long paragraph or list) is further cut into pieces, at a line
 * break or else a space, so the growing end never re-parses more than one piece: a 20,000-word answer
 * in one paragraph took over a second per parse near its end. While streaming, a piece boundary shows
 * as a paragraph break and an emphasis or link spanning it shows raw; the finished message is exact.
 * Tables are not cut (their rows need the header above them).
 */

/** The longest piece of a block that a streaming message parses at once, in characters. */
export const MAX_PIECE = 4000;

/**
 * `block` cut greedily from its start into pieces of at most `max` characters, each ending at the
 * last line break (else space) in its window, so a piece never changes once the text has grown past
 * it. The pieces joined give the block back.
 */
export function blockPieces(block: string, max = MAX_PIECE): string[] {
  if (block.length <= max || block.trimStart().startsWith("|")) return [block];
  const pieces: string[] = [];
  let start = 0;
  while (block.length - start > max) {
    const window = block.slice(start, start + max);
    let cut = window.lastIndexOf("\n");
    if (cut < max / 2) cut = Math.max(cut, window.lastIndexOf(" "));
    cut = cut <= 0 ? max : cut + 1;
    pieces.push(block.slice(start, start + cut));
    start += cut;
  }
  pieces.push(block.slice(start));
  return pieces;
}

/**
 * The blocks of `text`, joined back they give the same text (up to the blank lines between them); a
 * block outside fenced code and math longer than `maxPiece` comes as its pieces (`blockPieces`).
 */
export function markdownBlocks(text: string, maxPiece = MAX_PIECE): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  let math = false;
  // Whether the block being collected opened a fence or math (those are never cut).
  let verbatim = false;
  const close = () => {
    const block = current.join("\n");
    blocks.push(...(verbatim ? [block] : blockPieces(block, maxPiece)));
    current = [];
  };
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    const opener = /^(`{3,}|~{3,})/.exec(trimmed)?.[1];
    if (fence) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length && trimmed === opener) fence = undefined;
    } else if (opener) fence = opener;
    else if (trimmed.startsWith("$$") && !(trimmed.length > 2 && trimmed.endsWith("$$"))) math = !math;
    if (!fence && !math && trimmed === "" && current.length > 0 && !opener) {
      close();
      continue;
    }
    if (trimmed === "" && current.length === 0) continue;
    if (current.length === 0) verbatim = false;
    if (fence || math || opener) verbatim = true;
    current.push(line);
  }
  if (current.length > 0) close();
  return blocks;
}
