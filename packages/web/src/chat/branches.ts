/**
 * Regenerate and edit, as DeerFlow's frontend does them: the server prepares the replay
 * (`POST /api/threads/{id}/runs/regenerate/prepare`, `.../runs/edit-regenerate/prepare`) and answers the
 * input and the checkpoint to fork from; the chat then submits an ordinary run from that checkpoint, so
 * the earlier answer stays in the thread's history as a sibling branch. The thread is marked
 * `metadata.has_versions` first, so that opening it later loads the bounded history the branch picker needs
 * (threads never branched load no history at all).
 */
import type { Client } from "@langchain/langgraph-sdk";
import { apiFetch } from "../api";

/** Checkpoints the chat reads for the branch picker of a branched thread (newest first). */
export const BRANCH_HISTORY_LIMIT = 50;

/** What a prepare route answers: the run to submit. */
export interface PreparedReplay {
  input: Record<string, unknown>;
  checkpoint: { checkpoint_id: string; checkpoint_ns: string; checkpoint_map: Record<string, unknown> | null };
  metadata: Record<string, unknown>;
}

const post = async (threadId: string, route: string, body: unknown, apiKey: string | undefined) => {
  const response = await apiFetch(`/threads/${encodeURIComponent(threadId)}/runs/${route}/prepare`, apiKey, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await response.json()) as PreparedReplay;
};

/** Prepares a new answer to the question before `answerId` (the latest answer). */
export const prepareRegenerate = (threadId: string, answerId: string, apiKey: string | undefined) =>
  post(threadId, "regenerate", { message_id: answerId }, apiKey);

/** Prepares the latest question `humanId` asked again as `text`. */
export const prepareEdit = (threadId: string, humanId: string, text: string, apiKey: string | undefined) =>
  post(threadId, "edit-regenerate", { human_message_id: humanId, replacement_text: text }, apiKey);

/** Marks the thread as branched (kept with its other metadata), so its history is read on open. */
export async function markBranched(client: Client, threadId: string): Promise<void> {
  await client.threads.update(threadId, { metadata: { has_versions: true } });
}

/** The branch picker's view of one message: where it is among its siblings. */
export interface BranchView {
  /** Names the versions and the one in view; equal ids show the same picker. */
  id: string;
  index: number;
  total: number;
  go: (step: -1 | 1) => void;
}

/** The picker of a message from the SDK's branch metadata; undefined when it has no siblings. */
export function branchView(
  meta: { branch?: string; branchOptions?: string[] } | undefined,
  setBranch: (branch: string) => void,
): BranchView | undefined {
  const options = meta?.branchOptions;
  if (!options || options.length < 2 || meta.branch === undefined) return undefined;
  const index = options.indexOf(meta.branch);
  if (index === -1) return undefined;
  return {
    id: `${meta.branch}|${options.join(",")}`,
    index,
    total: options.length,
    go: (step) => {
      const next = options[index + step];
      if (next !== undefined) setBranch(next);
    },
  };
}
