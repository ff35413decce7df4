/**
 * File names for uploads. A name comes from outside (a CLI argument's base name, a browser's form
 * field) and becomes a file in the thread's uploads directory and a path the model types into shell
 * commands, so it is refused when it could name another place (`../../x`, `a/b`, empty, NUL) and
 * tidied when it is merely awkward (shell-hostile characters, a leading dash).
 */

/** Characters a shell (or Windows) treats specially; each becomes `_`. */
const SHELL_HOSTILE = /[<>:"|?*`$;&'!]/g;
/** Bidirectional controls and invisible marks, which can make `invoice\u202Efdp.exe` look like a PDF; each becomes `_`. */
const BIDI_AND_INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** Longest upload name in UTF-8 bytes (leaves room for a `_N` suffix under NAME_MAX). */
export const MAX_UPLOAD_NAME_BYTES = 240;

/** Prefix of the staging files of an upload in progress; never a valid name. */
export const STAGING_PREFIX = ".upload-";

/**
 * True for the staging file of an upload in progress (`.upload-<random>.part`). Only these are hidden
 * from listings; any other dotfile, even one named `.upload-notes.txt`, is a file of the thread.
 */
export function isStagingFileName(name: string): boolean {
  return name.startsWith(STAGING_PREFIX) && name.endsWith(".part");
}

/**
 * Returns the cleaned name, or `{ error }` with a sentence saying why the name was refused.
 *
 * @example
 * ```ts
 * cleanUploadName("notes (1).txt"); // "notes (1).txt"
 * cleanUploadName("../../x");       // { error: "... contains a path separator ..." }
 * ```
 */
export function cleanUploadName(name: unknown): string | { error: string } {
  if (typeof name !== "string" || name.trim() === "") return { error: "the file name is empty" };
  const shown = JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
  if (/[\u0000-\u001f\u007f]/.test(name)) return { error: `the file name ${shown} contains control characters` };
  if (name.includes("/") || name.includes("\\")) {
    return { error: `the file name ${shown} contains a path separator; an upload name must be a plain file name` };
  }
  const trimmed = name.normalize("NFC").trim();
  if (trimmed === "." || trimmed === "..") return { error: `the file name ${shown} is not a file name` };
  if (trimmed.startsWith(STAGING_PREFIX))
    return { error: `the file name ${shown} is reserved for uploads in progress` };
  if (Buffer.byteLength(trimmed) > MAX_UPLOAD_NAME_BYTES) {
    return { error: `the file name ${shown} is longer than ${MAX_UPLOAD_NAME_BYTES} bytes` };
  }
  return trimmed.replace(SHELL_HOSTILE, "_").replace(BIDI_AND_INVISIBLE, "_").replace(/^-/, "_");
}

/** `name`, then `stem_1.ext`, `stem_2.ext`, ... for the n-th alternative (n >= 1). */
export function numberedName(name: string, n: number): string {
  if (n === 0) return name;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)}_${n}${name.slice(dot)}` : `${name}_${n}`;
}
