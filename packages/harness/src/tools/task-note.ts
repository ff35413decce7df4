/**
 * `task_note`: the agent's notebook for a long task. Compaction keeps the gist of a conversation and
 * loses what the agent decided and how far it got; a note written here lives in the `task_notes`
 * channel, and durable context shows every kept note on each model call, so progress and decisions
 * survive any number of compactions. Notes are short (at most {@link TASK_NOTE_MAX_CHARS}
 * characters), never edited, and the oldest drop off past 20.
 */
import { ToolMessage } from "@langchain/core/messages";
import { tool, type ToolRuntime } from "@langchain/core/tools";
import { Command } from "@langchain/langgraph";
import { z } from "zod";
import type { TaskNote } from "../state/shapes.js";

export const TASK_NOTE_TOOL_NAME = "task_note";
export const TASK_NOTE_MAX_CHARS = 500;

const error = (toolCallId: string, content: string) =>
  new ToolMessage({ name: TASK_NOTE_TOOL_NAME, tool_call_id: toolCallId, status: "error", content });

/**
 * The `task_note` tool. Each call adds one note to `task_notes`.
 *
 * @example
 * tools.push(createTaskNoteTool());
 */
export function createTaskNoteTool(now: () => Date = () => new Date()) {
  return tool(
    async ({ note }: { note: string }, runtime: ToolRuntime) => {
      const toolCallId = runtime.toolCallId ?? runtime.toolCall?.id ?? "";
      const text = note.split(/\s+/).filter(Boolean).join(" ");
      if (!text) return error(toolCallId, "Error: task_note needs the note's text: one or two sentences.");
      if (text.length > TASK_NOTE_MAX_CHARS)
        return error(
          toolCallId,
          `Error: the note is ${text.length} characters; task_note keeps at most ${TASK_NOTE_MAX_CHARS}. Write the essentials only.`,
        );
      const entry: TaskNote = { id: toolCallId || `note-${now().getTime()}`, text, created_at: now().toISOString() };
      return new Command({
        update: {
          task_notes: [entry],
          messages: [
            new ToolMessage({
              name: TASK_NOTE_TOOL_NAME,
              tool_call_id: toolCallId,
              content: "Noted. You will see this note on every later turn, even after the conversation is compacted.",
            }),
          ],
        },
      });
    },
    {
      name: TASK_NOTE_TOOL_NAME,
      description:
        "Write a short durable note about the task you are working on: progress made, a decision and its reason, " +
        "what is left to do. Notes are shown to you on every later turn and survive conversation compaction. " +
        "Write one when a long task reaches a milestone or you settle a decision; do not repeat earlier notes.",
      schema: z.object({
        note: z.string().describe(`The note, at most ${TASK_NOTE_MAX_CHARS} characters`),
      }),
    },
  );
}
