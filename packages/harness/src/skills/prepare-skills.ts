/**
 * The skills of one agent: discovered from the bundled and user folders, filtered by the enabled state in
 * `extensions_config.json`, and projected into the read-only view the sandbox shows at `/mnt/skills`.
 * A broken extensions file or skill is a warning, never a failed start: the agent then runs with the
 * defaults (every valid skill enabled).
 */
import path from "node:path";
import { findExtensionsFile } from "../config/extensions-file.js";
import type { ActivatableSkill } from "../middleware/skill-activation.js";
import type { SkillSummary } from "./load-skills.js";
import {
  BUNDLED_SKILLS_DIR,
  discoverSkills,
  readSkillStates,
  skillRoots,
  type SkillCategory,
} from "./skill-catalog.js";
import { buildSkillsView } from "./skills-view.js";

/** Inputs of {@link prepareSkills}. */
export interface PrepareSkillsInput {
  /** The configured `skills.path`, resolved. */
  skillsPath: string;
  /** `skills.container_path`, e.g. `/mnt/skills`. */
  containerPath: string;
  home: string;
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Where the shipped skills are; defaults to this package's `skills/public`. */
  bundledDir?: string;
  onWarning?: (message: string) => void;
}

/** An enabled skill as the prompt lists it and `/name` activates it. */
export type PreparedSkill = SkillSummary & ActivatableSkill & { category: SkillCategory };

/** What an agent needs to know about skills. */
export interface PreparedSkills {
  /** Host directory to show at `/mnt/skills` (enabled skills only). */
  viewDir: string;
  enabled: PreparedSkill[];
  /** Names of installed skills that are switched off. */
  disabled: string[];
}

/**
 * Finds the skills and builds their view.
 *
 * @example
 * const skills = prepareSkills({ skillsPath: path.resolve(config.skills.path), containerPath: "/mnt/skills", home });
 */
export function prepareSkills(input: PrepareSkillsInput): PreparedSkills {
  const warn = input.onWarning ?? (() => {});
  const extensions = findExtensionsFile({ env: input.env, cwd: input.cwd });
  let states: Record<string, boolean> = {};
  try {
    states = readSkillStates(extensions.path);
  } catch (error) {
    warn(`${(error as Error).message} Until then skills keep their defaults (enabled) for this run.`);
  }
  const skills = discoverSkills(skillRoots(input.skillsPath, input.bundledDir ?? BUNDLED_SKILLS_DIR), states, warn);
  const viewDir = buildSkillsView(input.home, skills);
  const enabled = skills
    .filter((skill) => skill.enabled)
    .map((skill) => ({
      name: skill.name,
      description: skill.description,
      category: skill.category,
      location: `${input.containerPath}/${skill.category}/${skill.name}/SKILL.md`,
      hostPath: path.join(viewDir, skill.category, skill.name, "SKILL.md"),
    }));
  return { viewDir, enabled, disabled: skills.filter((skill) => !skill.enabled).map((skill) => skill.name) };
}
