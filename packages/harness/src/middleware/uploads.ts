/**
 * Chain slot 2. Tells the model about files uploaded since its last turn: a `<current_uploads>` block
 * (name, size, virtual path) is put in front of the user's message, once. Which files are new comes
 * from the message's `additional_kwargs.files` when a client sends it (DeerFlow's web UI does), else
 * from the uploads directory minus the files announced in earlier messages (the CLI copies files there
 * with `saveUploads` before the run). The new files are also written to `uploaded_files`.
 */
import fs from "node:fs";
import path from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { VIRTUAL_UPLOADS, threadPaths } from "../sandbox/virtual-paths.js";
import type { UploadedFile } from "../state/shapes.js";
import { threadStateSubset } from "../state/thread-state.js";
import { STAGING_PREFIX } from "../uploads/upload-name.js";
import type { Logger } from "../logger.js";

/** Options of {@link uploadsMiddleware}. */
export interface UploadsOptions {
  /** DeerFlow home; uploads are in `{home}/threads/{thread_id}/user-data/uploads`. */
  home: string;
  /** Most files listed one by one; the rest are summarized by extension. DeerFlow: 10. */
  maxFilesListed?: number;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/** Files in an uploads directory (regular files, staging copies excluded), oldest first. */
export function listUploads(uploadsDir: string): UploadedFile[] {
  let names: fs.Dirent[];
  try {
    names = fs.readdirSync(uploadsDir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files = names
    .filter((entry) => entry.isFile() && !entry.name.startsWith(STAGING_PREFIX))
    .map((entry) => {
      const hostPath = path.join(uploadsDir, entry.name);
      const stat = fs.statSync(hostPath);
      return {
        file: {
          filename: entry.name,
          size: stat.size,
          path: hostPath,
          virtual_path: `${VIRTUAL_UPLOADS}/${entry.name}`,
        },
        mtime: stat.mtimeMs,
      };
    });
  return files
    .sort((a, b) => a.mtime - b.mtime || a.file.filename.localeCompare(b.file.filename))
    .map(({ file }) => file);
}

/**
 * The files to announce now: those named in the last human message's `additional_kwargs.files` (when
 * present), else every available file not announced by an earlier message.
 */
export function selectNewUploads(messages: readonly BaseMessage[], available: readonly UploadedFile[]): UploadedFile[] {
  const humans = messages.filter((message) => HumanMessage.isInstance(message));
  const last = humans.at(-1);
  if (!last) return [];
  const announced = new Set<string>();
  for (const message of humans) {
    // Clients write these lists; entries that are not objects are skipped, not trusted.
    for (const file of asList(message.additional_kwargs?.uploaded_files).filter(isRecord))
      announced.add(String(file.virtual_path));
  }
  const requested = last.additional_kwargs?.files;
  if (Array.isArray(requested)) {
    const names = new Set(requested.filter(isRecord).map((file) => String(file.filename ?? "")));
    return available.filter((file) => names.has(file.filename) && !announced.has(file.virtual_path));
  }
  return available.filter((file) => !announced.has(file.virtual_path));
}

/** Human-readable size: "512 B", "12.3 KB", "4.0 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The `<current_uploads>` block for `files` (at least one). File names and extensions are tag-escaped. */
export function formatUploadsBlock(files: readonly UploadedFile[], maxListed = 10): string {
  const shown = files.slice(0, maxListed);
  const lines = ["<current_uploads>", "The following files were uploaded in this message:", ""];
  for (const file of shown)
    lines.push(`- ${escapeTags(file.filename)} (${formatSize(file.size)})`, `  Path: ${escapeTags(file.virtual_path)}`);
  const rest = files.slice(maxListed);
  if (rest.length > 0) {
    const byExtension = new Map<string, number>();
    for (const file of rest) {
      const extension = escapeTags(path.extname(file.filename).toLowerCase()) || "(no extension)";
      byExtension.set(extension, (byExtension.get(extension) ?? 0) + 1);
    }
    const summary = [...byExtension].map(([extension, count]) => `${count} ${extension}`).join(", ");
    lines.push(`- ...and ${rest.length} more (${summary}); list them with ls /mnt/user-data/uploads`);
  }
  lines.push(
    "",
    "Work from these files first: read them with read_file (use start_line/end_line for long ones) and search them with grep or glob.",
    "</current_uploads>",
  );
  return lines.join("\n");
}

/**
 * A copy of `message` with the block in front of its text (string content) or as its first text block
 * (list content), recording the announced files and the user's original text in `additional_kwargs`
 * (`original_user_content`: kept when it is already a string, else the message's own text).
 */
export function withUploadsBlock(message: BaseMessage, files: readonly UploadedFile[], maxListed = 10): HumanMessage {
  const block = formatUploadsBlock(files, maxListed);
  const content =
    typeof message.content === "string"
      ? `${block}\n\n${message.content}`
      : [{ type: "text" as const, text: block }, ...message.content];
  // Clients can send this key; only a string is the user's text (anything else is replaced, not trusted).
  const recorded = message.additional_kwargs?.original_user_content;
  const original = typeof recorded === "string" ? recorded : message.text;
  return new HumanMessage({
    id: message.id,
    name: message.name,
    content,
    additional_kwargs: {
      ...message.additional_kwargs,
      original_user_content: original,
      uploaded_files: files.map(({ filename, size, virtual_path }) => ({ filename, size, virtual_path })),
    },
    response_metadata: message.response_metadata,
  });
}

/**
 * Announces new uploads in the user's message and writes `uploaded_files` (`[]` when there are none).
 *
 * @example
 * ```ts
 * createAgent({ model, tools, middleware: [threadDataMiddleware({ home }), uploadsMiddleware({ home })] });
 * ```
 */
export function uploadsMiddleware(options: UploadsOptions) {
  const maxListed = options.maxFilesListed ?? 10;
  return createMiddleware({
    name: "uploads",
    stateSchema: threadStateSubset("uploaded_files"),
    beforeAgent: (state, runtime) => {
      const threadId = runtime.configurable?.thread_id;
      if (typeof threadId !== "string") return { uploaded_files: [] };
      const fresh = selectNewUploads(state.messages, listUploads(threadPaths(options.home, threadId).uploads_path));
      if (fresh.length === 0) return { uploaded_files: [] };
      options.logger?.debug(`${fresh.length} new uploaded file(s) listed for the model`);
      const last = [...state.messages].reverse().find((message) => HumanMessage.isInstance(message))!;
      return { messages: [withUploadsBlock(last, fresh, maxListed)], uploaded_files: fresh };
    },
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function escapeTags(text: string): string {
  return text.replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
