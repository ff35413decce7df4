/**
 * `POST /threads/{id}/branches {message_id, message_ids?, title?}` (DeerFlow's "branch from here"): a new
 * thread of the caller holding the conversation up to the end of the answer named, leaving the source
 * thread as it was. `message_ids` are all the answer messages of that turn (DeerFlow's frontend sends
 * them); the branch point is the newest checkpoint on the head's lineage that holds all of them with no
 * visible message after them, at rest (no step pending).
 *
 * The new thread gets the source's checkpoints and archive (like `/threads/{id}/copy`), then a head
 * forked from the branch point carrying its title (`title`, else the source's with " (branch)"), and
 * metadata naming where it came from (`deerflow_branch`, `branch_parent_thread_id`,
 * `branch_parent_checkpoint_id`, `branch_parent_message_id`, `branch_created_at`). Files are copied only
 * when branching from the latest turn (`workspace_clone_mode: "copied"`): an older turn would get files
 * written after it (`"skipped_historical_turn"`), as in DeerFlow. Answers DeerFlow's
 * `{thread_id, parent_thread_id, parent_checkpoint_id, branched_from_message_id, workspace_clone_mode,
 * history_seed_mode}`.
 */
import { cp, stat } from "node:fs/promises";
import { threadUserDataDir } from "@deerflow/harness";
import type { BaseMessage } from "@langchain/core/messages";
import type { StateSnapshot } from "@langchain/langgraph";
import { z } from "zod";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { callerOf } from "../auth/caller.js";
import { HttpError, notFound } from "../http/errors.js";
import { parseBody, pathId } from "../http/validate.js";
import { uuid7 } from "../runs/ids.js";
import { requireThread } from "../runs/threads.js";
import { updateThreadValues } from "../runs/update-state.js";

const BranchSchema = z.strictObject({
  message_id: z.string().min(1, "name the answer to branch from"),
  message_ids: z.array(z.string().min(1)).max(200).default([]),
  title: z.string().trim().min(1).max(256).nullish(),
});

/** Checkpoints walked back from the head before giving up. */
const MAX_WALK = 400;

const messagesOf = (snapshot: StateSnapshot): BaseMessage[] => {
  const messages = (snapshot.values as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(messages) ? (messages as BaseMessage[]) : [];
};

const shown = (message: BaseMessage) =>
  (message.getType() === "human" || message.getType() === "ai") && message.additional_kwargs?.hide_from_ui !== true;

/** True when `messages` hold every target as an answer and nothing visible after the last one. */
function endsWithTargets(messages: BaseMessage[], targets: Set<string>): boolean {
  const indexes = [...targets].map((id) => messages.findIndex((message) => message.id === id));
  if (indexes.some((index) => index < 0 || messages[index]!.getType() !== "ai")) return false;
  return !messages.slice(Math.max(...indexes) + 1).some(shown);
}

/** The branch point on the head's lineage, and whether it is the head's turn. */
async function branchPoint(context: ServerContext, threadId: string, targets: Set<string>) {
  const graph = context.harness.agent().graph;
  let current = await graph.getState({ configurable: { thread_id: threadId } });
  if (!current.config?.configurable?.checkpoint_id) throw notFound(`A checkpoint of thread ${threadId}`);
  const head = current;
  if (![...targets].every((id) => messagesOf(head).some((message) => message.id === id)))
    throw notFound(`Message ${[...targets][0]} in thread ${threadId}`);
  const seen = new Set<string>();
  for (let walked = 0; walked < MAX_WALK; walked += 1) {
    if (current.next.length === 0 && endsWithTargets(messagesOf(current), targets))
      return { snapshot: current, latest: current === head };
    const parent = current.parentConfig?.configurable;
    if (!parent?.checkpoint_id || seen.has(String(parent.checkpoint_id))) break;
    seen.add(String(parent.checkpoint_id));
    current = await graph.getState({
      configurable: {
        thread_id: threadId,
        checkpoint_ns: parent.checkpoint_ns ?? "",
        checkpoint_id: parent.checkpoint_id,
      },
    });
    if (!current.config?.configurable?.checkpoint_id) break;
  }
  throw new HttpError(
    409,
    `Thread ${threadId} keeps no checkpoint that ends with answer ${[...targets][0]}, so it cannot be branched from there ` +
      "(it is not a finished answer, or checkpoints.retention dropped that point). Branch from the latest answer instead.",
  );
}

/** Copies the source's files when it has any; answers DeerFlow's clone mode. */
async function copyFiles(context: ServerContext, from: string, to: string): Promise<string> {
  const source = threadUserDataDir(context.harness.home, from);
  if (!(await stat(source).catch(() => null))) return "empty";
  try {
    await cp(source, threadUserDataDir(context.harness.home, to), { recursive: true, verbatimSymlinks: true });
    return "copied";
  } catch (error) {
    context.options.log(`branch ${to} of ${from}: copying files failed: ${(error as Error).message}`);
    return "failed";
  }
}

/** Registers the branch route. */
export const registerBranchRoutes: RegisterRoutes = (api, context) => {
  api.post("/threads/:thread_id/branches", async (c) => {
    const threadId = pathId(c, "thread_id");
    const body = await parseBody(c, BranchSchema);
    const caller = callerOf(c);
    const source = await requireThread(context, caller, threadId);
    if ((await context.runs.active(threadId)).length > 0)
      throw new HttpError(409, `Thread ${threadId} has a run in progress; branch from it after the run ends.`);
    const { snapshot, latest } = await branchPoint(context, threadId, new Set([body.message_id, ...body.message_ids]));
    const checkpointId = String(snapshot.config!.configurable!.checkpoint_id);

    const branchId = uuid7();
    const now = new Date().toISOString();
    // The source's title now: the branch point may predate a rename.
    const sourceTitle = source.values?.title ?? (snapshot.values as { title?: unknown }).title;
    const title =
      body.title ?? `${typeof sourceTitle === "string" && sourceTitle ? sourceTitle : "Conversation"} (branch)`;
    const inherited = Object.fromEntries(
      Object.entries(source.metadata).filter(
        ([key]) => key === "graph_id" || key === "assistant_id" || key === "agent_name",
      ),
    );
    await context.checkpoints.copyThreadState(threadId, branchId);
    await context.threads.create(
      branchId,
      {
        ...inherited,
        deerflow_branch: true,
        branch_parent_thread_id: threadId,
        branch_parent_checkpoint_id: checkpointId,
        branch_parent_message_id: body.message_id,
        branch_created_at: now,
      },
      "raise",
      caller.userId,
    );
    await updateThreadValues(context, { threadId: branchId, checkpointId }, { title });
    const workspace = latest ? await copyFiles(context, threadId, branchId) : "skipped_historical_turn";
    return c.json({
      thread_id: branchId,
      parent_thread_id: threadId,
      parent_checkpoint_id: checkpointId,
      branched_from_message_id: body.message_id,
      workspace_clone_mode: workspace,
      history_seed_mode: "seeded",
    });
  });
};
