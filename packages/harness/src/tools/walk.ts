/**
 * Directory walking for `ls`, `glob` and `grep`. Symlinks are reported but never followed into, so a
 * link planted in the workspace cannot make a listing or search wander outside (or loop), and very
 * large trees are cut off after a fixed number of entries. Upload staging files are never listed.
 */
import fs from "node:fs";
import path from "node:path";
import { isStagingFileName } from "../uploads/upload-name.js";

/** One entry found by {@link walkDir}. */
export interface WalkEntry {
  /** Path relative to the walk root, `/`-separated. */
  relative: string;
  hostPath: string;
  kind: "file" | "dir" | "symlink" | "other";
  depth: number;
}

/** Directories listed but not descended into (dependency, cache and VCS folders). */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".next",
  ".cache",
]);

/** {@link SKIPPED_DIRS} minus the ones a glob pattern names as a path segment (`node_modules/**` searches there). */
export function skippedDirsFor(pattern: string): ReadonlySet<string> {
  const named = new Set(pattern.split("/"));
  return new Set([...SKIPPED_DIRS].filter((dir) => !named.has(dir)));
}

/** Options of {@link walkDir}. */
export interface WalkOptions {
  /** 1 = direct children only. */
  maxDepth: number;
  /** Stop after this many entries. */
  maxEntries: number;
  /** Names of directories not to descend into. */
  skipDirs?: ReadonlySet<string>;
}

/** Depth-first walk in name order. Sets `truncated` on the returned object when `maxEntries` was hit. */
export async function walkDir(
  root: string,
  options: WalkOptions,
): Promise<{ entries: WalkEntry[]; truncated: boolean }> {
  const entries: WalkEntry[] = [];
  const skip = options.skipDirs ?? SKIPPED_DIRS;
  let truncated = false;
  const visit = async (dir: string, relative: string, depth: number): Promise<void> => {
    let children: fs.Dirent[];
    try {
      children = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      if (entries.length >= options.maxEntries) {
        truncated = true;
        return;
      }
      // An upload in progress (`.upload-*.part`) is not a file of the thread yet.
      if (isStagingFileName(child.name)) continue;
      const kind = child.isSymbolicLink() ? "symlink" : child.isDirectory() ? "dir" : child.isFile() ? "file" : "other";
      const childRelative = relative ? `${relative}/${child.name}` : child.name;
      const hostPath = path.join(dir, child.name);
      entries.push({ relative: childRelative, hostPath, kind, depth });
      if (kind === "dir" && depth < options.maxDepth && !skip.has(child.name))
        await visit(hostPath, childRelative, depth + 1);
    }
  };
  await visit(root, "", 1);
  return { entries, truncated };
}
