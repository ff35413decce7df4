/**
 * How many terminal rows a piece of printed text occupies, so the CLI can take streamed text back off
 * the screen (text a model wrote before it decided to call a tool was not the answer). Erasing one row
 * too many would wipe a progress line above it; one too few leaves a stray row. Terminals wrap by cell,
 * and East Asian wide characters and most emoji take two cells, combining marks none, a tab up to the
 * next multiple of 8 (never past the last column). This is the common subset of what terminals agree on, not a full `wcwidth`.
 */

const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}]/u;
const EMOJI = /\p{Extended_Pictographic}/u;

/** Cells a code point takes: 0 (combining, joiners), 2 (wide, emoji) or 1. */
export function cellWidth(char: string): number {
  if (ZERO_WIDTH.test(char)) return 0;
  const code = char.codePointAt(0) ?? 0;
  const wide =
    (code >= 0x1100 && code <= 0x115f) || // Hangul Jamo
    (code >= 0x2e80 && code <= 0x303e) || // CJK radicals, punctuation
    (code >= 0x3041 && code <= 0x33ff) || // kana, CJK compatibility
    (code >= 0x3400 && code <= 0x4dbf) || // CJK extension A
    (code >= 0x4e00 && code <= 0x9fff) || // CJK unified ideographs
    (code >= 0xa000 && code <= 0xa4cf) || // Yi
    (code >= 0xac00 && code <= 0xd7a3) || // Hangul syllables
    (code >= 0xf900 && code <= 0xfaff) || // CJK compatibility ideographs
    (code >= 0xfe30 && code <= 0xfe4f) || // CJK compatibility forms
    (code >= 0xff00 && code <= 0xff60) || // fullwidth forms
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x20000 && code <= 0x3fffd); // CJK extensions B and later
  return wide || (code > 0xff && EMOJI.test(char)) ? 2 : 1;
}

/**
 * Rows `text` occupies when printed from the start of a row on a terminal `columns` cells wide. The
 * cursor ends on the last of them (a line that exactly fills the width does not start a new row).
 *
 * @example
 * screenRows("hello", 80)           // 1
 * screenRows("a".repeat(81), 80)    // 2
 * screenRows("one\ntwo\n", 80)      // 3 (the cursor is at the start of the third)
 * screenRows("漢字漢字", 6)          // 2 (8 cells)
 */
export function screenRows(text: string, columns: number): number {
  const width = Math.max(1, columns);
  let rows = 0;
  for (const line of text.split("\n")) {
    rows += 1;
    let column = 0;
    for (const char of line) {
      if (char === "\t") {
        column = Math.min((Math.floor(column / 8) + 1) * 8, width - 1); // a tab never wraps
        continue;
      }
      const cells = cellWidth(char);
      if (column + cells > width) {
        rows += 1;
        column = 0;
      }
      column += cells;
    }
  }
  return rows;
}
