/**
 * What makes a title prompt template usable, stated once: the config rejects a bad `title.prompt_template`
 * at load time, and the title middleware, given a bad template in code, skips the model call and uses the
 * fallback title. No imports, so both layers may read it.
 */

/** Placeholders a title prompt may use. */
export const TITLE_PLACEHOLDERS: readonly string[] = ["max_words", "user_msg", "assistant_msg"];

/**
 * Why `template` cannot be used as a title prompt, or `undefined` when it can: every `{name}` must be a
 * known placeholder, and `{user_msg}` must be present (a title of nothing is no title).
 */
export function titleTemplateProblem(template: string): string | undefined {
  const unknown = [...template.matchAll(/\{(\w+)\}/g)]
    .map((match) => match[1]!)
    .find((name) => !TITLE_PLACEHOLDERS.includes(name));
  if (unknown !== undefined) return `unknown placeholder {${unknown}}; use {user_msg}, {assistant_msg} and {max_words}`;
  if (!template.includes("{user_msg}")) return "the template must contain {user_msg} (the user's first message)";
  return undefined;
}
