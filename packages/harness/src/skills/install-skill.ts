/**
 * `deerflow skills install FILE.skill`: puts a skill archive into the user's custom skills folder.
 * Everything is checked before anything is written (see `read-skill-archive.ts` for the archive checks;
 * here: a valid SKILL.md at the top of the archive or of its single top folder, with DeerFlow's
 * frontmatter keys only, and no existing skill of that name unless `force`). The files are written to a
 * temp folder beside the destination and renamed into place, so a failure leaves nothing behind and a
 * replaced skill is swapped in one step.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { HarnessError } from "../errors.js";
import { parseSkillFile } from "./frontmatter.js";
import {
  type ArchiveFile,
  readSkillArchive,
  SKILL_ARCHIVE_LIMITS,
  type SkillArchiveLimits,
} from "./read-skill-archive.js";

/** Options of {@link installSkillArchive}. */
export interface InstallSkillOptions {
  /** Replace an installed skill of the same name. */
  force?: boolean;
  limits?: SkillArchiveLimits;
}

/** What was installed. */
export interface InstalledSkill {
  name: string;
  description: string;
  /** Host folder the skill now lives in. */
  dir: string;
  /** True when an existing skill of that name was replaced (`force`). */
  replaced: boolean;
  fileCount: number;
}

/**
 * The archive's skill package: its files relative to the package folder, and the SKILL.md text. The
 * package is the archive's top level when SKILL.md is there, else its single top folder.
 */
export function locatePackage(
  files: readonly ArchiveFile[],
): { files: ArchiveFile[]; skillFile: Buffer } | { error: string } {
  if (files.length === 0) return { error: "the archive is empty" };
  const top = files.find((file) => file.path === "SKILL.md");
  if (top) return { files: [...files], skillFile: top.data };
  const folders = new Set(files.map((file) => file.path.split("/")[0]!));
  const [folder] = folders;
  const inner =
    folders.size === 1 && files.every((file) => file.path.includes("/"))
      ? files.find((file) => file.path === `${folder}/SKILL.md`)
      : undefined;
  if (!inner) return { error: "it has no SKILL.md at its top level or inside a single top folder" };
  return {
    files: files.map((file) => ({ ...file, path: file.path.slice(folder!.length + 1) })),
    skillFile: inner.data,
  };
}

/**
 * Validates `archive` and installs it as `{customDir}/{name}`.
 *
 * @example
 * const installed = await installSkillArchive("report-writer.skill", customSkillsDir(path.resolve(config.skills.path)));
 */
export async function installSkillArchive(
  archive: string,
  customDir: string,
  options: InstallSkillOptions = {},
): Promise<InstalledSkill> {
  const refuse = (reason: string) =>
    new HarnessError("skill_rejected", `Refused to install ${archive}: ${reason}. Nothing was written.`);
  const located = locatePackage(await readSkillArchive(archive, options.limits ?? SKILL_ARCHIVE_LIMITS));
  if ("error" in located) throw refuse(located.error);
  const text = located.skillFile.toString("utf8");
  if (text.includes("\uFFFD")) throw refuse("its SKILL.md is not UTF-8 text");
  const parsed = parseSkillFile(text, { strict: true });
  if ("error" in parsed) throw refuse(`its SKILL.md is not valid: ${parsed.error}`);
  const { name, description } = parsed.frontmatter;
  const dir = path.join(customDir, name);
  const exists = existsSync(dir);
  if (exists && !options.force)
    throw refuse(`a skill named "${name}" is already installed at ${dir}; pass --force to replace it`);

  mkdirSync(customDir, { recursive: true });
  const suffix = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const temp = path.join(customDir, `.installing-${name}-${suffix}`);
  const old = path.join(customDir, `.replaced-${name}-${suffix}`);
  try {
    for (const file of located.files) {
      const target = path.join(temp, ...file.path.split("/"));
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, file.data, { mode: file.executable ? 0o755 : 0o644, flag: "wx" });
    }
    if (exists) renameSync(dir, old);
    try {
      renameSync(temp, dir);
    } catch (error) {
      if (exists) renameSync(old, dir);
      throw error;
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
  return { name, description, dir, replaced: exists, fileCount: located.files.length };
}
