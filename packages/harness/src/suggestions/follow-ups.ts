/**
 * Follow-up questions for the end of a conversation (DeerFlow's suggestions): one model call that is
 * shown the last few turns and asked for a JSON array of short questions in the user's language. What
 * comes back is cleaned (reasoning blocks and code fences dropped, non-strings and blanks skipped) and
 * cut to the number asked for. A model that answers something unreadable yields no suggestions rather
 * than an error: suggestions are a convenience under the answer, never a reason for the page to fail.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { contentText } from "../messages/content.js";

/** One turn of the conversation as the client sends it. */
export interface ConversationLine {
  role: string;
  content: string;
}

/** The first words of the instruction; the demo model recognises a suggestions request by them. */
export const FOLLOW_UP_INSTRUCTION_START = "You suggest follow-up questions";

/** The instruction the model is given for `count` questions. */
export function followUpInstruction(count: number): string {
  return [
    `${FOLLOW_UP_INSTRUCTION_START} that the user could ask next in the conversation below.`,
    `Write exactly ${count} of them.`,
    "Each one must follow from what was discussed, be in the language the user writes in, and be short (about 20 words, or 40 Chinese characters, at most).",
    'Answer with a JSON array of strings and nothing else: no numbering, no markdown, no commentary. Example: ["First question?", "Second question?"]',
  ].join("\n");
}

/** The conversation as "User: ..." / "Assistant: ..." lines. */
export function conversationText(lines: readonly ConversationLine[]): string {
  return lines
    .map(({ role, content }) => {
      const who = role.trim().toLowerCase();
      const label =
        who === "user" || who === "human" ? "User" : who === "assistant" || who === "ai" ? "Assistant" : role;
      return `${label}: ${content.trim()}`;
    })
    .filter((line) => !/^[^:]*:\s*$/.test(line))
    .join("\n");
}

/** The strings of the first JSON array in `text` (after reasoning blocks and fences are removed), or []. */
export function parseQuestionList(text: string): string[] {
  const cleaned = text
    .replace(/<think>[\s\S]*?<\/think>/gi, "")
    .replace(/```[a-z]*\n?/gi, "")
    .trim();
  const start = cleaned.indexOf("[");
  const end = cleaned.lastIndexOf("]");
  if (start < 0 || end <= start) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(cleaned.slice(start, end + 1));
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed
    .filter((item): item is string => typeof item === "string")
    .map((item) => item.replace(/\s+/g, " ").trim())
    .filter((item) => item.length > 0);
}

/** Asks `model` for `count` follow-up questions to `lines`; [] when there is nothing to go on. */
export async function suggestFollowUps(
  model: BaseChatModel,
  lines: readonly ConversationLine[],
  count: number,
  signal?: AbortSignal,
): Promise<string[]> {
  const conversation = conversationText(lines);
  if (!conversation) return [];
  const reply = await model.invoke(
    [
      new SystemMessage(followUpInstruction(count)),
      new HumanMessage(`The conversation:\n${conversation}\n\nWrite ${count} follow-up questions.`),
    ],
    { signal },
  );
  return parseQuestionList(contentText(reply.content)).slice(0, count);
}
