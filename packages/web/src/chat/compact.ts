/**
 * `/compact` typed in the composer: instead of a message, the app asks the gateway to summarize the
 * thread's older messages now (`POST /api/threads/{id}/compact`, DeerFlow's route and body), and
 * tells the user what happened. The conversation on screen stays as it was; the next model calls use
 * the summary and the recent messages.
 */
import { apiFetch } from "../api";
import { t } from "../i18n";

/** The gateway's answer (DeerFlow's `ThreadCompactResponse`). */
export interface CompactResult {
  thread_id: string;
  compacted: boolean;
  reason: string | null;
  removed_message_count: number;
  preserved_message_count: number;
  summary_updated: boolean;
  checkpoint_id: string | null;
  total_tokens: number;
}

/** Whether the composer's text is the compact command (`/compact`, or DeerFlow's `/context compact`). */
export function isCompactCommand(text: string): boolean {
  return /^\/(?:compact|context\s+compact)$/i.test(text.trim());
}

/** Compacts `threadId` with the run's model (`model_name`); throws the server's reason on a refusal. */
export async function compactThread(
  threadId: string,
  apiKey: string | undefined,
  modelName?: string,
): Promise<CompactResult> {
  const response = await apiFetch(`/threads/${encodeURIComponent(threadId)}/compact`, apiKey, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ force: true, ...(modelName ? { model_name: modelName } : {}) }),
  });
  return (await response.json()) as CompactResult;
}

/** The line shown after a compaction. */
export function compactNotice(result: CompactResult): string {
  if (!result.compacted) return t("chat.nothingToCompact");
  const count = result.removed_message_count;
  return count === 1 ? t("chat.compactedOne") : t("chat.compacted", { count });
}
