/**
 * Finds the installed skills: every `SKILL.md` under the skills directory (a directory holding a
 * SKILL.md is one package; SKILL.md files nested deeper inside it are its data). A broken skill is
 * skipped with a warning instead of stopping the agent.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseSkillFile } from "./frontmatter.js";

/** A skill as the system prompt lists it. */
export interface SkillSummary {
  name: string;
  description: string;
  /** Virtual path the model reads, e.g. `/mnt/skills/public/deep-research/SKILL.md`. */
  location: string;
  hostPath: string;
}

/**
 * Lists the skills under `hostDir`, shown to the model under `containerPath`.
 *
 * @example
 * const skills = loadSkills("skills", "/mnt/skills", console.warn);
 */
export function loadSkills(hostDir: string, containerPath: string, onWarning: (message: string) => void = () => {}): SkillSummary[] {
  if (!existsSync(hostDir)) return [];
  const skills: SkillSummary[] = [];
  const visit = (dir: string, depth: number) => {
    if (depth > 4) return;
    const entries = readdirSync(dir, { withFileTypes: true });
    if (entries.some((entry) => entry.isFile() && entry.name === "SKILL.md")) {
      const hostPath = path.join(dir, "SKILL.md");
      const parsed = parseSkillFile(readFileSync(hostPath, "utf8"));
      const relative = path.relative(hostDir, hostPath).split(path.sep).join("/");
      if ("error" in parsed) onWarning(`Skipping skill ${relative}: ${parsed.error}.`);
      else skills.push({ name: parsed.frontmatter.name, description: parsed.frontmatter.description, location: `${containerPath}/${relative}`, hostPath });
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.name.startsWith(".")) visit(path.join(dir, entry.name), depth + 1);
    }
  };
  visit(hostDir, 0);
  return skills.sort((a, b) => a.location.localeCompare(b.location));
}
