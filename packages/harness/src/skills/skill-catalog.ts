/**
 * The installed skills and whether each is enabled, in DeerFlow's layout: `public` skills ship with
 * DeerFlow.ts (in this package's `skills/public`, plus `{skills.path}/public` for extra ones a user drops
 * in), `custom` skills are the user's own under `{skills.path}/custom` (where `deerflow skills install`
 * puts them). A custom skill shadows a public one of the same name. Enabled state lives in
 * `extensions_config.json` under `skills: {name: {enabled}}`; a skill not listed there is enabled.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readExtensionsFile, updateExtensionsFile } from "../config/extensions-file.js";
import type { SkillFrontmatter } from "./frontmatter.js";
import { findSkills } from "./load-skills.js";

/** Where a skill comes from. */
export type SkillCategory = "public" | "custom";

/** The skills shipped with DeerFlow.ts (a folder of this package, so it ships with it). */
export const BUNDLED_SKILLS_DIR = fileURLToPath(new URL("../../skills/public", import.meta.url));

/** One directory scanned for skills. Later roots shadow earlier ones by skill name. */
export interface SkillRoot {
  category: SkillCategory;
  dir: string;
}

/** An installed skill. */
export interface SkillRecord {
  name: string;
  description: string;
  category: SkillCategory;
  /** Host folder of the package (holds SKILL.md). */
  dir: string;
  frontmatter: SkillFrontmatter;
  enabled: boolean;
}

/** The roots for a configured skills path, in shadowing order: bundled, `{path}/public`, `{path}/custom`. */
export function skillRoots(skillsPath: string, bundledDir: string = BUNDLED_SKILLS_DIR): SkillRoot[] {
  return [
    { category: "public", dir: bundledDir },
    { category: "public", dir: path.join(skillsPath, "public") },
    { category: "custom", dir: customSkillsDir(skillsPath) },
  ];
}

/** Where the user's skills (and installed archives) live. */
export function customSkillsDir(skillsPath: string): string {
  return path.join(skillsPath, "custom");
}

/**
 * Lists the installed skills with their enabled state, sorted by category then name.
 *
 * @example
 * const skills = discoverSkills(skillRoots(path.resolve(config.skills.path)), readSkillStates(file), console.warn);
 */
export function discoverSkills(
  roots: readonly SkillRoot[],
  states: Readonly<Record<string, boolean>> = {},
  onWarning: (message: string) => void = () => {},
): SkillRecord[] {
  const byName = new Map<string, SkillRecord>();
  for (const root of roots) {
    const seenHere = new Set<string>();
    for (const found of findSkills(root.dir, onWarning)) {
      const name = found.frontmatter.name;
      if (seenHere.has(name)) {
        onWarning(`Skipping skill ${found.hostPath}: another skill in ${root.dir} is also named "${name}".`);
        continue;
      }
      seenHere.add(name);
      byName.set(name, {
        name,
        description: found.frontmatter.description,
        category: root.category,
        dir: path.dirname(found.hostPath),
        frontmatter: found.frontmatter,
        enabled: states[name] ?? true,
      });
    }
  }
  return [...byName.values()].sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name));
}

/**
 * The `skills` key of an extensions file as `{name: enabled}`. Entries that are not `{enabled: boolean}`
 * are ignored; a missing file or key means every skill keeps its default (enabled).
 */
export function readSkillStates(file: string): Record<string, boolean> {
  const skills = readExtensionsFile(file).skills;
  const states: Record<string, boolean> = {};
  if (typeof skills !== "object" || skills === null) return states;
  for (const [name, entry] of Object.entries(skills)) {
    const enabled = (entry as { enabled?: unknown } | null)?.enabled;
    if (typeof enabled === "boolean") states[name] = enabled;
  }
  return states;
}

/** Persists one skill's enabled flag, keeping every other key of the file and of the skill's entry. */
export function setSkillEnabled(file: string, name: string, enabled: boolean): void {
  updateExtensionsFile(file, (data) => {
    const skills =
      typeof data.skills === "object" && data.skills !== null && !Array.isArray(data.skills)
        ? (data.skills as Record<string, unknown>)
        : {};
    const entry =
      typeof skills[name] === "object" && skills[name] !== null ? (skills[name] as Record<string, unknown>) : {};
    return { ...data, skills: { ...skills, [name]: { ...entry, enabled } } };
  });
}
