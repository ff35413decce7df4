/**
 * A first guess of a message row's height in pixels, from its text, before the virtualizer measures
 * it. The closer the guess, the less the list jumps and re-lays out while scrolling into rows never
 * seen. Numbers follow styles.css: 15 px text with 1.5 line height, 1 em between Markdown blocks,
 * 12 px between rows, the user's bubble at 85 % width with 8/12 px padding.
 */
const LINE = 22.5;
const BLOCK_GAP = 15;
const ROW_GAP = 12;
const CHAR = 7.5;

/** The estimated height of a message with `text`, in a list `width` pixels wide. */
export function estimateHeight(text: string, human: boolean, width: number): number {
  const perLine = Math.max(20, Math.floor(((human ? width * 0.85 - 24 : width) || 720) / CHAR));
  const blocks = text.split(/\n\s*\n/).filter((block) => block.trim());
  let lines = 0;
  for (const block of blocks)
    for (const line of block.split("\n")) lines += Math.max(1, Math.ceil(line.length / perLine));
  const body = Math.max(1, lines) * LINE + (human ? 16 : Math.max(0, blocks.length - 1) * BLOCK_GAP);
  return Math.round(body + ROW_GAP);
}
