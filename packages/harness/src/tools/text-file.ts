/**
 * Text helpers of the file tools: binary detection, line ranges, and a file-or-error lookup that turns
 * file-system failures into sentences the model can act on.
 */
import fs from "node:fs";
import type { AllowedPath } from "../sandbox/path-policy.js";
import { FileAccessError } from "../sandbox/safe-fs.js";
import { type ToolFailure, toolFailure } from "./sandbox-tool.js";

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Decodes UTF-8 text; returns null for data that looks binary (a NUL byte early on, or invalid UTF-8). */
export function decodeText(data: Buffer): string | null {
  if (data.subarray(0, 8192).includes(0)) return null;
  try {
    return decoder.decode(data);
  } catch {
    return null;
  }
}

/** Result of {@link selectLines}: the selected text, one of DeerFlow's parenthesised notes, or a start past the end. */
export function selectLines(
  text: string,
  startLine?: number | null,
  endLine?: number | null,
  virtualPath = "the file",
): string | ToolFailure {
  const badRange = rangeNote(startLine, endLine);
  if (badRange) return badRange;
  if (text === "") return startLine != null && startLine > 1 ? startPastEnd(0, virtualPath) : "(empty)";
  if (startLine == null && endLine == null) return text;
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  const start = startLine ?? 1;
  const end = endLine ?? lines.length;
  if (start > lines.length) return startPastEnd(lines.length, virtualPath);
  return lines.slice(start - 1, Math.min(end, lines.length)).join("\n");
}

/**
 * DeerFlow's note for a range that can hold no line, checked before the file is read: a bound below 1
 * (naming which one) or a start after the end. Null when the range is usable.
 */
export function rangeNote(startLine?: number | null, endLine?: number | null): string | null {
  if (startLine != null && startLine < 1) return "(start_line must be >= 1)";
  if (endLine != null && endLine < 1) return "(end_line must be >= 1)";
  if (endLine != null && (startLine ?? 1) > endLine) return "(start_line > end_line — no lines in range)";
  return null;
}

/** What is at an allowed path: a file, a directory, or nothing (`lstat` semantics after resolution). */
export function statTarget(target: AllowedPath): fs.Stats | null {
  try {
    return fs.statSync(target.realPath);
  } catch {
    return null;
  }
}

/** The model-facing sentence for a file-system error (`FileAccessError`s carry their own). */
export function describeFsError(error: unknown, virtualPath: string): string {
  if (error instanceof FileAccessError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return `File not found: ${virtualPath}`;
  if (code === "EACCES" || code === "EPERM") return `Permission denied: ${virtualPath}`;
  if (code === "EISDIR") return `${virtualPath} is a directory.`;
  if (code === "ENOTDIR") return `a parent of ${virtualPath} is not a directory.`;
  if (code === "ELOOP") return `Access denied: ${virtualPath} is a symlink that changed while it was being opened.`;
  if (code === "ENAMETOOLONG") return `Path is too long for the host file system: ${virtualPath}`;
  if (code === "ENOSPC") return "No space left on the device.";
  return (error as Error).message;
}

/** The failure for a `start_line` beyond the last line. */
export function startPastEnd(lineCount: number, virtualPath: string): ToolFailure {
  return toolFailure(
    `start_line exceeds file length: ${virtualPath} has ${lineCount} line${lineCount === 1 ? "" : "s"}. ` +
      (lineCount > 0 ? `Use a start_line from 1 to ${lineCount}.` : "Read it without start_line."),
  );
}
