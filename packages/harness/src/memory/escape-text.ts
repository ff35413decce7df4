/**
 * Stored memory and conversations are untrusted text that ends up between tags (`<memory>`,
 * `<conversation>`). Escaping `&`, `<` and `>` keeps such text from closing its tag and posing as
 * instructions or as another section.
 */

/** HTML-escapes `&`, `<` and `>`. */
export function escapeTagText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
