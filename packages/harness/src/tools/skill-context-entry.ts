/**
 * The producer side of the `skill_context` channel: when `read_file` returns a skill's SKILL.md, its
 * ToolMessage carries `additional_kwargs.skill_context_entry = { path, description }` so the durable
 * context middleware can remember which skills are active after compaction drops the message. Only the
 * frontmatter description is kept, never the body.
 */
import path from "node:path";
import { parse } from "yaml";
import { normalizeSkillDescription } from "../state/reducers.js";
import { VIRTUAL_SKILLS, isInsideDir } from "../sandbox/virtual-paths.js";

/** What a skill read records. */
export interface SkillContextEntry {
  path: string;
  description: string;
}

/** True for `{skillsRoot}/**\/SKILL.md` (the root is `skills.container_path`, default `/mnt/skills`). */
export function isSkillFile(virtualPath: string, skillsRoot: string = VIRTUAL_SKILLS): boolean {
  return isInsideDir(virtualPath, skillsRoot) && path.posix.basename(virtualPath) === "SKILL.md";
}

/**
 * The entry for a SKILL.md read: its virtual path and the frontmatter `description`, whitespace
 * collapsed and at most 500 characters ("" when the frontmatter has none or is not valid YAML).
 */
export function skillContextEntry(virtualPath: string, text: string): SkillContextEntry {
  return { path: virtualPath, description: normalizeSkillDescription(frontmatterDescription(text)) };
}

function frontmatterDescription(text: string): unknown {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  if (!match) return "";
  try {
    const data = parse(match[1]!) as unknown;
    return data && typeof data === "object" ? (data as { description?: unknown }).description : "";
  } catch {
    return "";
  }
}
