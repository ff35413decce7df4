/**
 * The `/skill-name` grammar: a message that starts with `/name` (no leading space; `name` in skill-name
 * form) asks for that skill for this turn. Control words that clients use for themselves never activate
 * a skill. Kept in one place so the CLI, a server and the middleware agree (DeerFlow pins the same rules
 * in its `slash_skill_contract.json`).
 */

/** Leading words reserved for client commands; never treated as skills. */
export const RESERVED_SLASH_NAMES: readonly string[] = [
  "bootstrap",
  "goal",
  "help",
  "memory",
  "models",
  "new",
  "status",
];

/** `/name` then whitespace or the end of the text. */
export const SLASH_SKILL_PATTERN = /^\/([a-z0-9]+(?:-[a-z0-9]+)*)(?:\s+|$)/;

/** A leading `/name` and the text after it. */
export interface SlashRequest {
  name: string;
  /** The user's text after `/name`, trimmed (may be empty). */
  rest: string;
}

/**
 * Reads a leading `/skill-name` from a user's text; null when there is none or the word is reserved.
 * Whether a skill of that name exists is for the caller to decide.
 *
 * @example
 * parseSlashSkill("/deep-research quantum batteries"); // { name: "deep-research", rest: "quantum batteries" }
 * parseSlashSkill("/help");                            // null (reserved)
 * parseSlashSkill(" /deep-research x");                // null (leading space)
 */
export function parseSlashSkill(text: string): SlashRequest | null {
  const match = SLASH_SKILL_PATTERN.exec(text);
  if (!match || RESERVED_SLASH_NAMES.includes(match[1]!)) return null;
  return { name: match[1]!, rest: text.slice(match[0].length).trim() };
}
