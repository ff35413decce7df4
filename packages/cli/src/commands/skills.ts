/**
 * `deerflow skills list | enable NAME | disable NAME | install FILE.skill [--force]`: the skills the
 * agent can use. Enabled state is saved in `extensions_config.json` (the same file and key DeerFlow
 * uses); installed archives go to `{skills.path}/custom/NAME` after every check has passed.
 */
import path from "node:path";
import {
  type AppConfig,
  customSkillsDir,
  discoverSkills,
  findExtensionsFile,
  HarnessError,
  installSkillArchive,
  loadConfig,
  readSkillStates,
  type SkillRecord,
  setSkillEnabled,
  skillRoots,
} from "@deerflow/harness";
import { UsageError } from "../usage-error.js";
import { parseCommandArgs } from "../command-args.js";

const ACTIONS = ["list", "enable", "disable", "install"];

/** Entry point of `deerflow skills`. */
export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs("skills", {
    args: argv,
    options: { config: { type: "string" }, force: { type: "boolean", default: false } },
    allowPositionals: true,
    strict: true,
  });
  const [action = "list", argument, ...extra] = parsed.positionals;
  if (!ACTIONS.includes(action))
    throw new UsageError(`Unknown skills action "${action}". Use one of: ${ACTIONS.join(", ")}.`);
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}". See deerflow skills --help.`);
  const config = loadConfig({ path: parsed.values.config });
  const skillsPath = path.resolve(config.skills.path);
  const extensions = findExtensionsFile();
  switch (action) {
    case "list":
      return list(config, skillsPath, extensions.path);
    case "enable":
    case "disable": {
      if (!argument)
        throw new UsageError(
          `Give the skill to ${action}: deerflow skills ${action} NAME (names are shown by deerflow skills list).`,
        );
      const skill = installed(skillsPath, extensions.path).find((candidate) => candidate.name === argument);
      if (!skill) {
        const names = installed(skillsPath, extensions.path).map((candidate) => candidate.name);
        process.stderr.write(
          `deerflow: No skill named "${argument}" is installed. Installed: ${names.join(", ") || "none"}.\n`,
        );
        return 1;
      }
      setSkillEnabled(extensions.path, skill.name, action === "enable");
      process.stderr.write(
        `${action === "enable" ? "Enabled" : "Disabled"} ${skill.name} (saved in ${extensions.path}).\n`,
      );
      return 0;
    }
    default: {
      if (!argument) throw new UsageError("Give the archive to install: deerflow skills install FILE.skill [--force].");
      try {
        const result = await installSkillArchive(path.resolve(argument), customSkillsDir(skillsPath), {
          force: parsed.values.force,
        });
        const state =
          readSkillStates(extensions.path)[result.name] === false
            ? ` It is disabled in ${extensions.path}; run deerflow skills enable ${result.name}.`
            : "";
        const publicRoots = skillRoots(skillsPath).filter((root) => root.category === "public");
        const shadows = discoverSkills(publicRoots).some((skill) => skill.name === result.name)
          ? ` It takes the place of the public skill ${result.name}.`
          : "";
        process.stderr.write(
          `${result.replaced ? "Replaced" : "Installed"} ${result.name} in ${result.dir} (${result.fileCount} files).${shadows}${state}\n`,
        );
        return 0;
      } catch (error) {
        if (error instanceof HarnessError && error.code === "skill_rejected") {
          process.stderr.write(`deerflow: ${error.message}\n`);
          return 2;
        }
        throw error;
      }
    }
  }
}

function installed(skillsPath: string, extensionsFile: string): SkillRecord[] {
  return discoverSkills(skillRoots(skillsPath), readSkillStates(extensionsFile), (message) =>
    process.stderr.write(`warning: ${message}\n`),
  );
}

function list(config: AppConfig, skillsPath: string, extensionsFile: string): number {
  const skills = installed(skillsPath, extensionsFile);
  if (skills.length === 0) {
    process.stdout.write(`No skills installed. Install one with: deerflow skills install FILE.skill\n`);
    return 0;
  }
  const width = Math.max(...skills.map((skill) => skill.name.length));
  for (const skill of skills) {
    const description = skill.description.length > 90 ? `${skill.description.slice(0, 89)}…` : skill.description;
    process.stdout.write(
      `${skill.name.padEnd(width)}  ${skill.category.padEnd(6)}  ${(skill.enabled ? "enabled" : "disabled").padEnd(8)}  ${description}\n`,
    );
  }
  process.stderr.write(
    `custom skills: ${customSkillsDir(skillsPath)}; enabled state: ${extensionsFile}; the agent sees them at ${config.skills.container_path}\n`,
  );
  return 0;
}
