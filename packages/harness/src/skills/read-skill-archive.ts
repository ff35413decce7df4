/**
 * Reads a `.skill` archive (a ZIP file) into memory, refusing anything hostile before a single byte is
 * written: too big on disk or unpacked, too many entries, a compression ratio only a zip bomb has,
 * absolute paths, `..` segments, backslashes, symlinks or other special files, encrypted or duplicate
 * entries. Sizes are checked on the declared values first and again on the bytes actually inflated
 * (yauzl fails an entry whose data does not match its declared size), so a lying header cannot get
 * past the caps.
 */
import { readFileSync, statSync } from "node:fs";
import type { Readable } from "node:stream";
import yauzl from "yauzl";
import { HarnessError } from "../errors.js";

/** Caps applied to an archive being installed. */
export interface SkillArchiveLimits {
  /** Largest archive file, in bytes. */
  maxArchiveBytes: number;
  /** Largest total of all files once unpacked, in bytes. */
  maxTotalBytes: number;
  /** Most entries (files and folders). */
  maxEntries: number;
  /** Highest unpacked/packed size ratio, checked for entries and totals over 1 MiB unpacked. */
  maxRatio: number;
}

/** Default caps: generous for instructions, scripts and templates, far below anything harmful. */
export const SKILL_ARCHIVE_LIMITS: SkillArchiveLimits = {
  maxArchiveBytes: 20 * 1024 * 1024,
  maxTotalBytes: 50 * 1024 * 1024,
  maxEntries: 1000,
  maxRatio: 100,
};

/** One file of the archive: its `/`-separated path and bytes; `executable` when its mode says so. */
export interface ArchiveFile {
  path: string;
  data: Buffer;
  executable: boolean;
}

const RATIO_FLOOR = 1024 * 1024;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

const refuse = (file: string, reason: string) =>
  new HarnessError("skill_rejected", `Refused to install ${file}: ${reason}. Nothing was written.`);

/** Why an entry name is unsafe, or null when it is a plain relative path. */
export function unsafeEntryName(name: string): string | null {
  if (name.length === 0) return "an entry has an empty name";
  if (/[\u0000-\u001f\u007f]/.test(name)) return `the entry name ${JSON.stringify(name)} holds control characters`;
  if (name.includes("\\")) return `the entry ${JSON.stringify(name)} uses backslashes (use / in archive paths)`;
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return `the entry ${JSON.stringify(name)} is an absolute path`;
  const segments = name.replace(/\/$/, "").split("/");
  if (segments.includes("..")) return `the entry ${JSON.stringify(name)} climbs out of the skill folder with ".."`;
  if (segments.some((segment) => segment === "" || segment === "."))
    return `the entry ${JSON.stringify(name)} has an empty or "." path segment`;
  return null;
}

/**
 * Reads `file` as a skill archive and returns its files (folders dropped), or throws a HarnessError
 * (`skill_rejected`) whose message names the file and the reason.
 *
 * @example
 * const files = await readSkillArchive("report-writer.skill");
 */
export async function readSkillArchive(
  file: string,
  limits: SkillArchiveLimits = SKILL_ARCHIVE_LIMITS,
): Promise<ArchiveFile[]> {
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw refuse(file, "it is not a regular file");
    size = stat.size;
  } catch (error) {
    if (error instanceof HarnessError) throw error;
    throw new HarnessError(
      "skill_rejected",
      `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}. Nothing was written.`,
    );
  }
  if (size > limits.maxArchiveBytes)
    throw refuse(file, `the archive is ${mib(size)}, more than the ${mib(limits.maxArchiveBytes)} limit`);

  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(readFileSync(file), {
      lazyEntries: true,
      decodeStrings: false,
      validateEntrySizes: true,
    });
  } catch (error) {
    throw refuse(file, `it is not a readable ZIP archive (${(error as Error).message})`);
  }
  try {
    if (zip.entryCount > limits.maxEntries)
      throw refuse(file, `it has ${zip.entryCount} entries, more than the ${limits.maxEntries} limit`);
    const files: ArchiveFile[] = [];
    const seen = new Set<string>();
    let declaredTotal = 0;
    let packedTotal = 0;
    for await (const entry of zip.eachEntry()) {
      const name = yauzl.getFileNameLowLevel(
        entry.generalPurposeBitFlag,
        entry.fileName as unknown as Buffer,
        entry.extraFields,
        true,
      );
      const unsafe = unsafeEntryName(name);
      if (unsafe) throw refuse(file, unsafe);
      const mode = entry.externalFileAttributes >>> 16;
      const type = mode & S_IFMT;
      if (type === S_IFLNK)
        throw refuse(file, `the entry ${JSON.stringify(name)} is a symlink (skills may only hold regular files)`);
      if (type !== 0 && type !== S_IFREG && type !== S_IFDIR)
        throw refuse(file, `the entry ${JSON.stringify(name)} is a special file (skills may only hold regular files)`);
      if (entry.isEncrypted()) throw refuse(file, `the entry ${JSON.stringify(name)} is encrypted`);
      const key = name.replace(/\/$/, "");
      if (seen.has(key)) throw refuse(file, `the entry ${JSON.stringify(name)} appears twice`);
      seen.add(key);
      if (name.endsWith("/") || type === S_IFDIR) continue;

      declaredTotal += entry.uncompressedSize;
      packedTotal += entry.compressedSize;
      if (declaredTotal > limits.maxTotalBytes)
        throw refuse(file, `it unpacks to more than the ${mib(limits.maxTotalBytes)} limit`);
      if (entry.uncompressedSize > RATIO_FLOOR && entry.uncompressedSize > entry.compressedSize * limits.maxRatio) {
        throw refuse(
          file,
          `the entry ${JSON.stringify(name)} expands ${Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize))}x (over ${limits.maxRatio}x looks like a zip bomb)`,
        );
      }
      if (declaredTotal > RATIO_FLOOR && declaredTotal > packedTotal * limits.maxRatio) {
        throw refuse(
          file,
          `it expands ${Math.round(declaredTotal / Math.max(1, packedTotal))}x (over ${limits.maxRatio}x looks like a zip bomb)`,
        );
      }
      let data: Buffer;
      try {
        data = await readCapped(await zip.openReadStreamPromise(entry), entry.uncompressedSize);
      } catch (error) {
        throw refuse(file, `the entry ${JSON.stringify(name)} could not be unpacked (${(error as Error).message})`);
      }
      files.push({ path: name, data, executable: type === S_IFREG && (mode & 0o111) !== 0 });
    }
    const filePaths = new Set(files.map((entry) => entry.path));
    for (const entry of files) {
      const segments = entry.path.split("/");
      for (let i = 1; i < segments.length; i++) {
        const parent = segments.slice(0, i).join("/");
        if (filePaths.has(parent))
          throw refuse(file, `the entry ${JSON.stringify(parent)} is both a file and a folder`);
      }
    }
    return files;
  } catch (error) {
    if (error instanceof HarnessError) throw error;
    throw refuse(file, `it is not a readable ZIP archive (${(error as Error).message})`);
  } finally {
    zip.close();
  }
}

/** Collects a stream, failing as soon as it yields more than `max` bytes. */
async function readCapped(stream: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > max) {
      stream.destroy();
      throw new Error(`more data than its declared ${max} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function mib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${bytes} bytes`;
}
