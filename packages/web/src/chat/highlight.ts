/** highlight.js with its common languages; imported lazily by Markdown.tsx (own chunk). */
import hljs from "highlight.js/lib/common";

/** Highlighted HTML (escaped by highlight.js) for `code`, auto-detecting when the language is unknown. */
export function highlight(code: string, language: string | undefined): string {
  if (language && hljs.getLanguage(language)) return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  return hljs.highlightAuto(code).value;
}
