/**
 * Sends the user's files to the gateway's upload route (`POST /api/threads/{id}/uploads`, multipart
 * `files`, as DeerFlow's UI does) before the message that uses them. The thread need not exist yet.
 * A refusal comes back per file, so the composer can show the reason on that file's chip.
 */
import { apiFetch } from "../api";
import { t } from "../i18n";

/** A file as the server stored it. */
export interface UploadedFile {
  filename: string;
  size: number;
  virtual_path?: string;
  path?: string;
}

/** The outcome: what was stored, and why each refused file was refused (by its original name). */
export interface UploadOutcome {
  stored: UploadedFile[];
  refused: Record<string, string>;
}

/** Uploads `files` to the thread; throws nothing, refusals are in `refused`. */
export async function uploadFiles(threadId: string, files: File[], apiKey: string | undefined): Promise<UploadOutcome> {
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  try {
    const response = await apiFetch(`/threads/${encodeURIComponent(threadId)}/uploads`, apiKey, {
      method: "POST",
      body: form,
    });
    const body = (await response.json()) as {
      files?: UploadedFile[];
      skipped_files?: { filename: string; reason: string }[];
    };
    const refused: Record<string, string> = {};
    for (const skipped of body.skipped_files ?? []) refused[skipped.filename] = skipped.reason;
    return { stored: body.files ?? [], refused };
  } catch (error) {
    const status = (error as { status?: number }).status;
    const reason =
      status === 404 || status === 405 ? t("chat.noUploads") : (error as Error).message.replace(/^HTTP \d+: /, "");
    return { stored: [], refused: Object.fromEntries(files.map((file) => [file.name, reason])) };
  }
}
