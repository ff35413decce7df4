/**
 * Reads the YAML frontmatter of a SKILL.md file. Skills are listed in the system prompt by name,
 * description and path only; their bodies are loaded on demand with `read_file`, so the prompt stays
 * small and static however many skills are installed.
 */
import { parse } from "yaml";
import { z } from "zod";

/** The frontmatter keys DeerFlow accepts; only `name` and `description` are required. */
export const SkillFrontmatter = z.looseObject({
  name: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "hyphen-case letters and digits").max(64),
  description: z.string().min(1).max(1024),
  license: z.string().optional(),
  "allowed-tools": z.array(z.string()).optional(),
  version: z.union([z.string(), z.number()]).optional(),
});
export type SkillFrontmatter = z.infer<typeof SkillFrontmatter>;

/** Splits `---\nyaml\n---\nbody` and validates the YAML. Returns an error sentence instead of throwing. */
export function parseSkillFile(text: string): { frontmatter: SkillFrontmatter; body: string } | { error: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) return { error: "SKILL.md must start with a --- frontmatter block holding name: and description:" };
  let data: unknown;
  try {
    data = parse(match[1]!);
  } catch (error) {
    return { error: `the frontmatter is not valid YAML (${(error as Error).message.split("\n")[0]})` };
  }
  const result = SkillFrontmatter.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    return { error: `frontmatter ${issue.path.join(".") || "block"}: ${issue.message}` };
  }
  return { frontmatter: result.data, body: match[2]! };
}
