/**
 * `history_read`: the exact wording of compacted messages. `search_history` finds a passage and names
 * its message number; when the passage is not enough (the whole tool output, the rest of a decision,
 * what came right after), the agent reads that stretch of the archive here, in order, with each
 * message's number, turn and role. Bounded: at most {@link MAX_READ_MESSAGES} messages and
 * {@link READ_CHARS} characters per call, split evenly, so a long message read alone comes back whole.
 */
import { tool, type ToolRuntime } from "@langchain/core/tools";
import { z } from "zod";
import type { AnyHistoryArchive } from "../history/history-archive.js";
import { messageText, roleOf } from "../history/history-search.js";
import { boundText } from "../messages/text.js";
import { shownAs } from "./tool-args.js";

export const HISTORY_READ_TOOL_NAME = "history_read";
export const MAX_READ_MESSAGES = 20;
/** Characters of one answer, shared by its messages: one message asked for alone gets all of them. */
export const READ_CHARS = 16_000;

/**
 * The tool over `archive`, reading the thread from the run's `configurable.thread_id`.
 *
 * @example
 * tools.push(createSearchHistoryTool(archive), createHistoryReadTool(archive));
 */
export function createHistoryReadTool(archive: AnyHistoryArchive) {
  return tool(
    async ({ from, to }: { from: number; to?: number }, runtime: ToolRuntime) => {
      const threadId = runtime.configurable?.thread_id ?? runtime.config?.configurable?.thread_id;
      const last = to ?? from + 4;
      if (last < from)
        return `Error: "to" (${last}) is before "from" (${from}). Give the first and last message numbers in order.`;
      if (last - from + 1 > MAX_READ_MESSAGES)
        return `Error: ${last - from + 1} messages asked for; history_read reads at most ${MAX_READ_MESSAGES} at a time. Read a shorter range, then the next one.`;
      let messages;
      try {
        if (typeof threadId !== "string" || !(await archive.hasArchive(threadId)))
          return "No earlier messages are archived for this thread: nothing has been compacted yet, so everything said is still in the conversation.";
        messages = await archive.readMessages(threadId, from, last);
      } catch (error) {
        return `Error: the history archive could not be read (${(error as Error).message.split("\n")[0]}). Go on without it, or try again later.`;
      }
      if (messages.length === 0)
        return `No archived message is numbered ${from} to ${last}. Use the message numbers search_history gives.`;
      const share = Math.floor(READ_CHARS / messages.length);
      const lines = messages.map(({ seq, turn, message }) => {
        const text = boundText(messageText(message), share) || "(no text)";
        return `message ${seq}${turn === null ? "" : `, turn ${turn}`}, ${roleOf(message)}:\n${text}`;
      });
      return lines.join("\n\n");
    },
    {
      name: HISTORY_READ_TOOL_NAME,
      description:
        "Read this thread's compacted messages in full, by the message numbers search_history returns. " +
        `Gives each message from "from" to "to" (default: from + 4, at most ${MAX_READ_MESSAGES}) with its turn and role; ` +
        "a long message is cut in the middle unless fewer messages are read, so read one number alone to get it whole.",
      schema: z.object({
        from: shownAs(z.number().int().min(1), { type: "integer", minimum: 1 }).describe(
          "The first message number, e.g. one search_history returned",
        ),
        to: shownAs(z.number().int().min(1).optional(), { type: "integer", minimum: 1 }).describe(
          "The last message number (default: from + 4)",
        ),
      }),
    },
  );
}
