/**
 * DeerFlow's frontend regenerates an answer and edits a message in two steps: it asks the gateway to
 * prepare the replay (`POST /threads/{id}/runs/regenerate/prepare`, `.../runs/edit-regenerate/prepare`),
 * then submits an ordinary `runs/stream` with the `input`, `checkpoint` and `metadata` it got back.
 * Without these routes both buttons failed with a 404 toast.
 *
 * The replay forks from the checkpoint just before the turn's user message, found by walking the
 * head's parent links (the branch in view, never a sibling branch), and re-sends that message (regenerate)
 * or its edited text under a new id (edit). Only the latest turn qualifies, as in DeerFlow: the frontend
 * hides the superseded messages by the ids and run id returned here. Under `checkpoints.retention: runs`
 * the walk crosses the turn's first step to the previous run's last checkpoint, or, for the first turn,
 * the thread's root (the first run's input checkpoint), which every retention but `latest` keeps.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { StateSnapshot } from "@langchain/langgraph";
import { z } from "zod";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { type Caller, callerOf } from "../auth/caller.js";
import { HttpError, notFound } from "../http/errors.js";
import { parseBody, pathId } from "../http/validate.js";
import { requireThread } from "../runs/threads.js";

const RegenerateSchema = z.strictObject({ message_id: z.string().min(1) });
const EditSchema = z.strictObject({ human_message_id: z.string().min(1), replacement_text: z.string().min(1) });

/** Ancestors walked from the head before giving up (a turn is about a dozen steps with `retention: all`). */
const MAX_WALK = 400;
/** Kwargs the harness adds to a user message during its run; a replay lets the new run add its own. */
const RUN_STAMPS = ["original_user_content", "uploaded_files", "hide_from_ui", "timestamp", "run_id"];
/** Kwargs an edited message keeps from the one it replaces: the files and quotes the user attached. */
const EDIT_KEEPS = ["files", "referenced_message_contexts"];

type Checkpoint = { checkpoint_ns: string; checkpoint_id: string; checkpoint_map: Record<string, unknown> | null };

const conflict = (detail: string) => new HttpError(409, detail);

/** Summaries and hook-inserted context (`hide_from_ui`) are not turns the user sees. */
function visible(message: BaseMessage, type: "human" | "ai"): boolean {
  return message.getType() === type && message.name !== "summary" && message.additional_kwargs?.hide_from_ui !== true;
}

function messagesOf(snapshot: StateSnapshot): BaseMessage[] {
  const messages = (snapshot.values as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(messages) ? (messages as BaseMessage[]) : [];
}

/** The text the user typed: before the uploads block was put in front of it. */
function typedText(message: BaseMessage): string {
  const original = message.additional_kwargs?.original_user_content;
  return typeof original === "string" ? original : message.text;
}

function titleOf(snapshot: StateSnapshot): string | null {
  const title = (snapshot.values as { title?: unknown } | undefined)?.title;
  return typeof title === "string" && title !== "" ? title : null;
}

/** The thread's head, after checking the thread exists and no run is writing to it. */
async function settledHead(context: ServerContext, caller: Caller, threadId: string): Promise<StateSnapshot> {
  await requireThread(context, caller, threadId);
  const active = await context.runs.active(threadId);
  if (active.length > 0) {
    throw conflict(
      `Thread ${threadId} has a run in progress (${active[0]!.run_id}); wait for it to finish or cancel it, then try again.`,
    );
  }
  const head = await context.harness.agent().graph.getState({ configurable: { thread_id: threadId } });
  if (!head.config?.configurable?.checkpoint_id) throw notFound(`A checkpoint of thread ${threadId}`);
  return head;
}

/**
 * The checkpoint to fork from to replay the turn that `humanId` opened: the nearest ancestor of the head
 * without that message, on the head's own lineage. It must be at rest (no pending step, which a fork
 * would replay) or a run's input checkpoint (its one pending step is the input, which the fork's input
 * replaces).
 */
async function checkpointBefore(context: ServerContext, threadId: string, head: StateSnapshot, humanId: string) {
  const graph = context.harness.agent().graph;
  const seen = new Set<string>();
  let current = head;
  for (let walked = 0; walked < MAX_WALK; walked += 1) {
    const parent = current.parentConfig?.configurable;
    if (!parent?.checkpoint_id) break;
    const id = String(parent.checkpoint_id);
    if (seen.has(id)) break;
    seen.add(id);
    current = await graph.getState({
      configurable: { thread_id: threadId, checkpoint_ns: parent.checkpoint_ns ?? "", checkpoint_id: id },
    });
    if (!current.config?.configurable?.checkpoint_id) break;
    const atRest = current.next.length === 0 || current.metadata?.source === "input";
    if (atRest && !messagesOf(current).some((message) => message.id === humanId)) {
      const configurable = current.config.configurable;
      const checkpoint: Checkpoint = {
        checkpoint_ns: (configurable.checkpoint_ns as string | undefined) ?? "",
        checkpoint_id: String(configurable.checkpoint_id),
        checkpoint_map: (configurable.checkpoint_map as Record<string, unknown> | undefined) ?? null,
      };
      return { checkpoint, snapshot: current };
    }
  }
  throw conflict(
    `Thread ${threadId} keeps no checkpoint from before message ${humanId}, so that turn cannot be replayed ` +
      "(with checkpoints.retention: latest only the newest checkpoint is kept). Send the message again instead.",
  );
}

/** The run that answered a turn: the harness stamps the turn's user message with it. */
function runOfTurn(human: BaseMessage): string | null {
  const runId = human.additional_kwargs?.run_id;
  return typeof runId === "string" && runId !== "" ? runId : null;
}

/** The user message to send again, without the stamps its first run added. */
function replayedHuman(human: BaseMessage): Record<string, unknown> {
  const kwargs = Object.fromEntries(
    Object.entries(human.additional_kwargs ?? {}).filter(([key]) => !RUN_STAMPS.includes(key)),
  );
  return {
    type: "human",
    ...(human.id ? { id: human.id } : {}),
    ...(human.name ? { name: human.name } : {}),
    content: [{ type: "text", text: typedText(human) }],
    additional_kwargs: kwargs,
  };
}

/** Registers `runs/regenerate/prepare` and `runs/edit-regenerate/prepare`. */
export const registerRegenerateRoutes: RegisterRoutes = (api, context) => {
  api.post("/threads/:thread_id/runs/regenerate/prepare", async (c) => {
    const threadId = pathId(c, "thread_id");
    const { message_id: messageId } = await parseBody(c, RegenerateSchema);
    const head = await settledHead(context, callerOf(c), threadId);
    const messages = messagesOf(head);
    const targetIndex = messages.findIndex((message) => message.id === messageId);
    let human: BaseMessage | undefined;
    let targetRunId: string | null = null;
    if (targetIndex === -1) {
      // An answer stopped mid-stream was shown live but never checkpointed: the latest question's run,
      // if it was interrupted, is the answer to regenerate.
      human = messages.findLast((message) => visible(message, "human"));
      const runId = human && runOfTurn(human);
      const run = runId ? await context.runs.get(runId) : null;
      if (!run || run.thread_id !== threadId || run.status !== "interrupted") {
        throw notFound(`Message ${messageId} in thread ${threadId}`);
      }
      targetRunId = run.run_id;
    } else {
      const target = messages[targetIndex]!;
      if (!visible(target, "ai")) {
        throw conflict(`Message ${messageId} is not an assistant answer; only answers can be regenerated.`);
      }
      const latest = messages.findLast((message) => visible(message, "ai"));
      if (latest !== target) {
        throw conflict(
          `Only the latest answer can be regenerated; message ${messageId} is an earlier one (the latest is ${latest?.id}).`,
        );
      }
      human = messages.slice(0, targetIndex).findLast((message) => visible(message, "human"));
      if (!human) throw conflict(`No user message precedes answer ${messageId}, so there is nothing to re-ask.`);
      targetRunId = runOfTurn(human);
    }
    if (!human?.id) throw conflict(`The user message before answer ${messageId} has no id, so it cannot be replayed.`);
    if (!targetRunId) {
      throw conflict(
        `No run is recorded for the question before answer ${messageId}; send the question again instead.`,
      );
    }

    const base = await checkpointBefore(context, threadId, head, human.id);
    const input: Record<string, unknown> = { messages: [replayedHuman(human)] };
    // The base can predate a rename: carry the current title so the fork does not roll it back.
    const title = titleOf(head);
    if (title) input.title = title;
    return c.json({
      input,
      checkpoint: base.checkpoint,
      metadata: {
        regenerate_from_message_id: messageId,
        regenerate_from_run_id: targetRunId,
        regenerate_checkpoint_id: base.checkpoint.checkpoint_id,
      },
      target_run_id: targetRunId,
    });
  });

  api.post("/threads/:thread_id/runs/edit-regenerate/prepare", async (c) => {
    const threadId = pathId(c, "thread_id");
    const body = await parseBody(c, EditSchema);
    const text = body.replacement_text.trim();
    if (text === "") throw conflict("The edited message is empty; type the new question.");
    const head = await settledHead(context, callerOf(c), threadId);
    const messages = messagesOf(head);
    const humanIndex = messages.findIndex((message) => message.id === body.human_message_id);
    if (humanIndex === -1) throw notFound(`Message ${body.human_message_id} in thread ${threadId}`);
    const latestHuman = messages.findLastIndex((message) => visible(message, "human"));
    if (humanIndex !== latestHuman) {
      throw conflict(
        `Only the latest question can be edited; message ${body.human_message_id} is not the latest user message.`,
      );
    }
    const human = messages[humanIndex]!;
    const answerIndex = messages.findLastIndex((message, index) => index > humanIndex && visible(message, "ai"));
    const answer = messages[answerIndex];
    const answered =
      answer && answer.text.trim() !== "" && !((answer as { tool_calls?: unknown[] }).tool_calls?.length ?? 0);
    if (!answer?.id || !answered) {
      throw conflict(
        `Message ${body.human_message_id} has no finished text answer yet; only a completed turn can be edited.`,
      );
    }
    if (text === typedText(human).trim()) throw conflict("The edited message is unchanged; change the text first.");
    const targetRunId = runOfTurn(human);
    const run = targetRunId ? await context.runs.get(targetRunId) : null;
    // A thread the CLI wrote has no server run records; a run the server does know must have succeeded.
    if (!targetRunId || (run && run.status !== "success")) {
      throw conflict(
        `The run that answered message ${body.human_message_id} did not finish successfully; only a successful turn can be edited and rerun.`,
      );
    }

    const base = await checkpointBefore(context, threadId, head, body.human_message_id);
    const replacementId = crypto.randomUUID();
    const kwargs = Object.fromEntries(
      Object.entries(human.additional_kwargs ?? {}).filter(([key]) => EDIT_KEEPS.includes(key)),
    );
    const input: Record<string, unknown> = {
      messages: [
        {
          type: "human",
          id: replacementId,
          ...(human.name ? { name: human.name } : {}),
          content: [{ type: "text", text }],
          additional_kwargs: kwargs,
        },
      ],
    };
    // An untitled base belongs to a thread not yet named: let the edited question name it.
    const title = titleOf(head);
    if (title && titleOf(base.snapshot)) input.title = title;
    const group = run?.metadata?.edit_version_group_id;
    return c.json({
      input,
      checkpoint: base.checkpoint,
      metadata: {
        replay_kind: "edit",
        regenerate_from_message_id: answer.id,
        regenerate_from_run_id: targetRunId,
        regenerate_checkpoint_id: base.checkpoint.checkpoint_id,
        edit_from_message_id: body.human_message_id,
        edit_message_id: replacementId,
        edit_version_group_id: typeof group === "string" && group !== "" ? group : body.human_message_id,
      },
      target_run_id: targetRunId,
      replacement_human_message_id: replacementId,
      source_message_ids: messages
        .slice(humanIndex, answerIndex + 1)
        .map((message) => message.id)
        .filter((id): id is string => Boolean(id)),
    });
  });
};
