/**
 * Finds the skills in one directory tree: every `SKILL.md` under it (a directory holding a SKILL.md is
 * one package; SKILL.md files nested deeper inside it are its data). A broken skill is skipped with a
 * warning instead of stopping the agent.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseSkillFile, type SkillFrontmatter } from "./frontmatter.js";

/** A skill as the system prompt lists it. */
export interface SkillSummary {
  name: string;
  description: string;
  /** Virtual path the model reads, e.g. `/mnt/skills/public/deep-research/SKILL.md`. */
  location: string;
  hostPath: string;
}

/** One valid skill package found on disk. */
export interface FoundSkill {
  frontmatter: SkillFrontmatter;
  /** Host path of its SKILL.md. */
  hostPath: string;
  /** Its folder relative to the scanned directory, `/`-separated (`""` when SKILL.md is at the top). */
  relativeDir: string;
}

/** Every valid skill package under `hostDir` (nothing when it does not exist), sorted by folder. */
export function findSkills(hostDir: string, onWarning: (message: string) => void = () => {}): FoundSkill[] {
  if (!existsSync(hostDir)) return [];
  const found: FoundSkill[] = [];
  const visit = (dir: string, depth: number) => {
    if (depth > 4) return;
    const entries = readdirSync(dir, { withFileTypes: true });
    if (entries.some((entry) => entry.isFile() && entry.name === "SKILL.md")) {
      const hostPath = path.join(dir, "SKILL.md");
      const relativeDir = path.relative(hostDir, dir).split(path.sep).join("/");
      const parsed = parseSkillFile(readFileSync(hostPath, "utf8"));
      if ("error" in parsed)
        onWarning(`Skipping skill ${path.join(hostDir, relativeDir, "SKILL.md")}: ${parsed.error}.`);
      else found.push({ frontmatter: parsed.frontmatter, hostPath, relativeDir });
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.name.startsWith(".")) visit(path.join(dir, entry.name), depth + 1);
    }
  };
  visit(hostDir, 0);
  return found.sort((a, b) => a.relativeDir.localeCompare(b.relativeDir));
}

/**
 * Lists the skills under `hostDir`, shown to the model under `containerPath`.
 *
 * @example
 * const skills = loadSkills("skills", "/mnt/skills", console.warn);
 */
export function loadSkills(
  hostDir: string,
  containerPath: string,
  onWarning: (message: string) => void = () => {},
): SkillSummary[] {
  return findSkills(hostDir, onWarning)
    .map(({ frontmatter, hostPath, relativeDir }) => ({
      name: frontmatter.name,
      description: frontmatter.description,
      location: `${containerPath}/${relativeDir ? `${relativeDir}/` : ""}SKILL.md`,
      hostPath,
    }))
    .sort((a, b) => a.location.localeCompare(b.location));
}
