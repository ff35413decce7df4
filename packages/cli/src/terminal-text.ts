/**
 * Text from a model, a tool or a title is untrusted: an escape sequence in it could clear the screen,
 * retitle the window, rewrite earlier lines or hide text when printed raw. Control characters are shown
 * in caret notation (ESC as `^[`) instead, so the user sees them and the terminal does not act on them.
 * Newlines and tabs are kept.
 */

// C0 controls except \t and \n, DEL, and the C1 controls (which some terminals treat like ESC sequences).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Neutralises terminal control characters in `text`.
 *
 * @example
 * terminalSafe("\x1b[2Jhi\r") // "^[[2Jhi^M" (a CRLF line end is kept as "\n")
 */
export function terminalSafe(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(CONTROL, (char) => {
    const code = char.charCodeAt(0);
    if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
    if (code === 0x7f) return "^?";
    return `\\x${code.toString(16)}`;
  });
}
