/**
 * A thread's conversation as a file a person keeps: Markdown or JSON, the transcript the user saw (their
 * questions as typed and the assistant's answers), as DeerFlow's export does by default. Tool calls and
 * results, reasoning, summaries and messages hidden from the UI (memory and reminders) are left out.
 * Used by `GET /threads/{id}/export` and `deerflow threads export`.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { contentText } from "../messages/content.js";
import type { HistoryEntry } from "./history-archive.js";

/** The two export formats. */
export const EXPORT_FORMATS = ["md", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What the export says about the thread. */
export interface ExportedThread {
  threadId: string;
  title: string | null;
  createdAt: string | null;
}

/** One line of the transcript. */
export interface TranscriptMessage {
  role: "user" | "assistant";
  id: string | null;
  content: string;
}

/** The messages a person saw, in order, as user and assistant text. */
export function transcriptOf(entries: readonly HistoryEntry[]): TranscriptMessage[] {
  const out: TranscriptMessage[] = [];
  for (const entry of entries) {
    if (entry.kind !== "message") continue;
    const message: BaseMessage = entry.message;
    const type = message.getType();
    if (type !== "human" && type !== "ai") continue;
    if (message.additional_kwargs?.hide_from_ui === true || message.name === "summary") continue;
    const original = message.additional_kwargs?.original_user_content;
    const text = (type === "human" && typeof original === "string" ? original : contentText(message.content)).trim();
    if (!text) continue;
    out.push({ role: type === "human" ? "user" : "assistant", id: message.id ?? null, content: text });
  }
  return out;
}

/** The file's text in `format`; `now` is the export time written into it. */
export function exportConversation(
  thread: ExportedThread,
  entries: readonly HistoryEntry[],
  format: ExportFormat,
  now = new Date(),
): string {
  const messages = transcriptOf(entries);
  const title = thread.title?.trim() || "Untitled conversation";
  if (format === "json") {
    return `${JSON.stringify(
      {
        title,
        thread_id: thread.threadId,
        created_at: thread.createdAt,
        exported_at: now.toISOString(),
        messages: messages.map(({ role, id, content }) => ({ type: role === "user" ? "human" : "ai", id, content })),
      },
      null,
      2,
    )}\n`;
  }
  const lines = [
    `# ${title}`,
    "",
    `*Exported ${now.toISOString()}${thread.createdAt ? ` · started ${thread.createdAt}` : ""} · thread ${thread.threadId}*`,
    "",
  ];
  for (const message of messages)
    lines.push("---", "", message.role === "user" ? "## User" : "## Assistant", "", message.content, "");
  return `${lines.join("\n").trimEnd()}\n`;
}

/** A file name for the export: the title's letters, digits, spaces, `-` and `_`, else "conversation". */
export function exportFileName(title: string | null, format: ExportFormat): string {
  const base =
    (title ?? "")
      .replace(/[^\p{L}\p{N}_\- ]/gu, "")
      .replace(/\s+/g, " ")
      .trim()
      .slice(0, 80) || "conversation";
  return `${base}.${format}`;
}
