/**
 * What the sandbox shows at `/mnt/skills`: a read-only projection holding copies of the enabled skills
 * only, laid out as `{category}/{name}/...`. It exists because the sandbox binds one directory while
 * skills come from two places (the package and the user's skills path), and so that a disabled skill is
 * not readable at all rather than merely unlisted (DeerFlow's enabled-only projection).
 *
 * A view is named by a hash of what it holds and never changed once built, so agents running at the
 * same time share it safely; it is built in a temp folder and renamed into place. Symlinks inside a
 * skill folder are not copied. Views unused for a week are removed.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { storageError } from "../storage/checkpointer.js";
import type { SkillRecord } from "./skill-catalog.js";

/** Views not used for this long are removed when a new one is built. */
const STALE_MS = 7 * 24 * 60 * 60 * 1000;

/** Files of one skill folder (regular files only, symlinks skipped), relative and `/`-separated. */
function listFiles(dir: string, prefix = ""): Array<{ relative: string; size: number; mtimeMs: number }> {
  const files: Array<{ relative: string; size: number; mtimeMs: number }> = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...listFiles(full, relative));
    else if (entry.isFile()) {
      const stat = fs.statSync(full);
      files.push({ relative, size: stat.size, mtimeMs: stat.mtimeMs });
    }
  }
  return files.sort((a, b) => a.relative.localeCompare(b.relative));
}

/**
 * Builds (or reuses) the view of `skills` under `{home}/skills-view/` and returns its directory. Only
 * enabled skills are included.
 *
 * @example
 * const view = buildSkillsView(home, discoverSkills(skillRoots(skillsPath), states));
 * // view/public/deep-research/SKILL.md
 */
export function buildSkillsView(home: string, skills: readonly SkillRecord[]): string {
  const enabled = skills.filter((skill) => skill.enabled);
  const listing = enabled.map((skill) => ({ skill, files: listFiles(skill.dir) }));
  const hash = createHash("sha256");
  for (const { skill, files } of listing) {
    hash.update(`${skill.category}/${skill.name}\0${skill.dir}\0`);
    for (const file of files) hash.update(`${file.relative}\0${file.size}\0${file.mtimeMs}\0`);
  }
  const root = path.join(home, "skills-view");
  const view = path.join(root, hash.digest("hex").slice(0, 16));
  if (fs.existsSync(view)) {
    const now = new Date();
    try {
      fs.utimesSync(view, now, now);
    } catch {
      // A read-only home: the view is still usable; only its last-used time (for pruning) is not updated.
    }
    return view;
  }
  try {
    fs.mkdirSync(root, { recursive: true });
  } catch (error) {
    throw storageError(root, error);
  }
  pruneStaleViews(root);
  const temp = path.join(root, `.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    for (const { skill, files } of listing) {
      for (const file of files) {
        const target = path.join(temp, skill.category, skill.name, ...file.relative.split("/"));
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.copyFileSync(path.join(skill.dir, ...file.relative.split("/")), target);
      }
    }
    fs.mkdirSync(temp, { recursive: true });
    fs.renameSync(temp, view);
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true });
    // Another process built the same view first: use theirs.
    if (!fs.existsSync(view)) throw storageError(root, error);
  }
  return view;
}

function pruneStaleViews(root: string): void {
  const now = Date.now();
  for (const name of fs.readdirSync(root)) {
    const full = path.join(root, name);
    try {
      if (now - fs.statSync(full).mtimeMs > STALE_MS) fs.rmSync(full, { recursive: true, force: true });
    } catch {
      // Removed by someone else meanwhile; nothing to do.
    }
  }
}
