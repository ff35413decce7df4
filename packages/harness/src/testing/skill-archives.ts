/**
 * Builds `.skill` archives (ZIP files) for tests, including hostile ones no friendly tool would write:
 * absolute and `..` names, symlink entries, zip bombs. fflate writes whatever name and mode it is given,
 * which is exactly what a hostile archive does.
 */
import { writeFileSync } from "node:fs";
import { type Zippable, zipSync } from "fflate";

/** One entry: text or bytes, with an optional Unix mode (e.g. `0o120777` for a symlink). */
export interface ArchiveEntry {
  data: string | Uint8Array;
  mode?: number;
  /** Store without compression (level 0) or compress hard (level 9, for bombs). Default 6. */
  level?: 0 | 6 | 9;
}

/** A SKILL.md with the given name and description. */
export function skillMd(
  name: string,
  description = `The ${name} skill.`,
  body = `# ${name}\n\nFollow these steps.\n`,
): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

/** Writes a ZIP archive with `entries` (keyed by entry name) to `file` and returns `file`. */
export function writeArchive(file: string, entries: Record<string, string | Uint8Array | ArchiveEntry>): string {
  const zippable: Zippable = {};
  for (const [name, value] of Object.entries(entries)) {
    const entry: ArchiveEntry = typeof value === "string" || value instanceof Uint8Array ? { data: value } : value;
    const data = typeof entry.data === "string" ? new TextEncoder().encode(entry.data) : entry.data;
    zippable[name] = [
      data,
      { level: entry.level ?? 6, ...(entry.mode !== undefined ? { os: 3, attrs: entry.mode * 65536 } : {}) },
    ];
  }
  writeFileSync(file, zipSync(zippable));
  return file;
}
