/**
 * `read_conversation`: the agent reads one of the user's own earlier conversations when the user
 * refers to it ("as we decided in the pricing thread"), instead of asking them to paste it again.
 *
 * Who may read what is not this tool's call: `mayRead(threadId)` answers it (the server checks the
 * thread's owner against the run's user; without a server, the home's local user reads any thread of
 * the home). Someone else's thread and a missing one get the same answer, so the tool never tells
 * whether a thread exists. At most {@link MAX_CONVERSATIONS_PER_REQUEST} conversations per user
 * message, each a bounded transcript: the visible user and assistant turns, the summary of any
 * compacted part, tool calls named but not shown. Everything read is escaped data.
 */
import { type BaseMessage, isAIMessage, isHumanMessage } from "@langchain/core/messages";
import { tool, type ToolRuntime } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { z } from "zod";
import { contentText } from "../messages/content.js";
import { boundText, collapseWhitespace, escapeData } from "../messages/text.js";
import { isValidThreadId } from "../sandbox/virtual-paths.js";

export const READ_CONVERSATION_TOOL_NAME = "read_conversation";
export const MAX_CONVERSATIONS_PER_REQUEST = 3;
export const CONVERSATION_CHARS = 12_000;

/** Whether the run's user may read thread `threadId`. */
export type ConversationAccess = (threadId: string) => boolean | Promise<boolean>;

/** Options of {@link createReadConversationTool}. */
export interface ReadConversationOptions {
  /** Where the threads' checkpoints are. */
  checkpointer: BaseCheckpointSaver;
  mayRead: ConversationAccess;
}

interface SavedValues {
  messages?: BaseMessage[];
  title?: string | null;
  summary_text?: string | null;
}

/**
 * A bounded, escaped transcript of a saved thread.
 *
 * @example
 * renderConversation("t-1", { title: "Pricing", messages: [new HumanMessage("Which plan?")] });
 * // '<conversation thread_id="t-1" title="Pricing">\nuser: Which plan?\n</conversation>'
 */
export function renderConversation(threadId: string, values: SavedValues): string {
  const lines: string[] = [];
  const summary = values.summary_text?.trim();
  if (summary) lines.push(`summary of the earlier, compacted part: ${escapeData(collapseWhitespace(summary))}`);
  for (const message of values.messages ?? []) {
    if (message.additional_kwargs?.hide_from_ui) continue;
    const text = escapeData(contentText(message.content, "\n").trim());
    if (isHumanMessage(message)) {
      if (text) lines.push(`user: ${text}`);
    } else if (isAIMessage(message)) {
      const tools = [...new Set((message.tool_calls ?? []).map((call) => call.name))];
      const used = tools.length > 0 ? ` (used ${tools.map(escapeData).join(", ")})` : "";
      if (text || used) lines.push(`assistant:${text ? ` ${text}` : ""}${used}`);
    }
  }
  const title = values.title ? ` title="${escapeData(collapseWhitespace(values.title)).replace(/"/g, "&quot;")}"` : "";
  const body = lines.length > 0 ? boundText(lines.join("\n"), CONVERSATION_CHARS) : "(no messages yet)";
  return `<conversation thread_id="${threadId}"${title}>\n${body}\n</conversation>`;
}

/** Distinct threads `read_conversation` was called for since the latest visible user message, this call excluded. */
export function conversationsReadThisRequest(messages: readonly BaseMessage[], toolCallId: string): Set<string> {
  const read = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i]!;
    if (isHumanMessage(message) && !message.additional_kwargs?.hide_from_ui) break;
    if (!isAIMessage(message)) continue;
    for (const call of message.tool_calls ?? []) {
      if (call.name === READ_CONVERSATION_TOOL_NAME && call.id !== toolCallId) read.add(String(call.args.thread_id));
    }
  }
  return read;
}

/**
 * The `read_conversation` tool.
 *
 * @example
 * tools.push(createReadConversationTool({ checkpointer, mayRead: (id) => ownerOf(id) === userId }));
 */
export function createReadConversationTool(options: ReadConversationOptions) {
  return tool(
    async ({ thread_id: threadId }: { thread_id: string }, runtime: ToolRuntime) => {
      const current = runtime.configurable?.thread_id ?? runtime.config?.configurable?.thread_id;
      const notFound = `Error: no conversation "${String(threadId).slice(0, 128)}" of this user was found. Use an id the user referenced; do not guess ids.`;
      if (!isValidThreadId(threadId)) return notFound;
      if (threadId === current) return "That is this conversation: its messages are already in front of you.";
      const messages = ((runtime.state as { messages?: BaseMessage[] } | undefined)?.messages ?? []) as BaseMessage[];
      const read = conversationsReadThisRequest(messages, runtime.toolCallId ?? runtime.toolCall?.id ?? "");
      if (!read.has(threadId) && read.size >= MAX_CONVERSATIONS_PER_REQUEST)
        return `Error: at most ${MAX_CONVERSATIONS_PER_REQUEST} other conversations can be read per user message, and ${[...read].join(", ")} were read already. Work with those.`;
      try {
        if (!(await options.mayRead(threadId))) return notFound;
        const saved = await options.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
        if (!saved) return notFound;
        return renderConversation(threadId, saved.checkpoint.channel_values as SavedValues);
      } catch (error) {
        return `Error: the conversation could not be read (${(error as Error).message.split("\n")[0]}). Go on without it, or try again later.`;
      }
    },
    {
      name: READ_CONVERSATION_TOOL_NAME,
      description:
        "Read one of the user's own earlier conversations (another thread), by the thread id the user referenced. " +
        `Returns its user and assistant turns. At most ${MAX_CONVERSATIONS_PER_REQUEST} conversations per user message.`,
      schema: z.object({
        thread_id: z.string().describe("The id of the conversation the user referenced"),
      }),
    },
  );
}
