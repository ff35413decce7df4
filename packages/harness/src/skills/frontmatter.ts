/**
 * Reads the YAML frontmatter of a SKILL.md file. Skills are listed in the system prompt by name,
 * description and path only; their bodies are loaded on demand with `read_file`, so the prompt stays
 * small and static however many skills are installed.
 *
 * Two strictness levels: skills already on disk are read leniently (unknown keys kept, so a skill
 * written for a newer DeerFlow still loads), while an archive being installed must use only the keys
 * DeerFlow defines (a typo such as `allowed_tools` would otherwise be silently ignored).
 */
import { parse } from "yaml";
import { z } from "zod";

const SecretRequirement = z.union([
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"),
  z.strictObject({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"),
    optional: z.boolean().optional(),
  }),
]);

const fields = {
  name: z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be text") })
    .max(64, "at most 64 characters")
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "hyphen-case lowercase letters and digits, e.g. deep-research"),
  description: z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be text") })
    .trim()
    .min(1, "must not be empty")
    .max(1024, "at most 1024 characters")
    .regex(/^[^<>]*$/, "must not contain < or >"),
  license: z.string().optional(),
  "allowed-tools": z.array(z.string()).optional(),
  "required-secrets": z.array(SecretRequirement).optional(),
  "secrets-autonomous": z.boolean().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  compatibility: z.string().optional(),
  version: z.union([z.string(), z.number()]).optional(),
  author: z.string().optional(),
};

/** The frontmatter keys DeerFlow accepts; only `name` and `description` are required. Unknown keys are kept. */
export const SkillFrontmatter = z.looseObject(fields);
export type SkillFrontmatter = z.infer<typeof SkillFrontmatter>;

/** The same keys, with nothing else allowed: what `deerflow skills install` demands. */
export const StrictSkillFrontmatter = z.strictObject(fields);

/** A parsed SKILL.md, or the sentence saying why it is not one. */
export type ParsedSkillFile = { frontmatter: SkillFrontmatter; body: string } | { error: string };

/**
 * Splits `---\nyaml\n---\nbody` and validates the YAML. Returns an error sentence instead of throwing.
 *
 * @example
 * const parsed = parseSkillFile("---\nname: demo\ndescription: Says hi\n---\n# Demo\n");
 * if ("error" in parsed) console.error(parsed.error);
 */
export function parseSkillFile(text: string, options: { strict?: boolean } = {}): ParsedSkillFile {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!match) return { error: "SKILL.md must start with a --- frontmatter block holding name: and description:" };
  let data: unknown;
  try {
    data = parse(match[1]!);
  } catch (error) {
    return { error: `the frontmatter is not valid YAML (${(error as Error).message.split("\n")[0]})` };
  }
  const result = (options.strict ? StrictSkillFrontmatter : SkillFrontmatter).safeParse(data ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    if (issue.code === "unrecognized_keys") {
      return {
        error: `frontmatter key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")} not allowed (allowed: ${Object.keys(fields).join(", ")})`,
      };
    }
    const where = issue.path.join(".");
    return { error: where ? `frontmatter ${where}: ${issue.message}` : `frontmatter: ${issue.message}` };
  }
  return { frontmatter: result.data as SkillFrontmatter, body: match[2]! };
}
