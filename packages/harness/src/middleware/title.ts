/**
 * Gives a thread a short title after its first complete exchange, so thread lists show something
 * better than an id.
 *
 * Runs once per thread, in `afterAgent`: when the thread has no `title`, a user message and an AI reply,
 * it asks the configured model for a title (tagged `langsmith:nostream` so its tokens never reach the
 * user's stream) and cleans the answer to the word and character limits. Without a model, with an unusable
 * prompt template (no model call then), or when the model fails or returns nothing usable, the title is the
 * start of the user's first message. A title, once set, is never regenerated. A first run that ended
 * before any AI reply gets its title on the next exchange.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import type { Logger } from "../logger.js";
import { threadStateSubset } from "../state/thread-state.js";
import { TITLE_DEFAULTS } from "../config/defaults.js";
import { titleTemplateProblem } from "../config/title-template.js";

/** Options of {@link titleMiddleware}. */
export interface TitleOptions {
  /** The model that writes titles (thinking off). Without one, titles come from the user's message. */
  model?: BaseChatModel;
  /** Most words in a title. Default 6. */
  maxWords?: number;
  /** Most characters in a title. Default 60. */
  maxChars?: number;
  /**
   * Prompt with `{max_words}`, `{user_msg}` and `{assistant_msg}` placeholders. One with an unknown
   * placeholder or without `{user_msg}` is not used: the model is not called and the fallback title is.
   */
  promptTemplate?: string;
  /**
   * Receives a message when the prompt template is unusable or the model call fails (the fallback title is
   * used). Default: `console.warn`.
   */
  onWarning?: (message: string) => void;
  /** Logs the title set (debug), and whether it came from the model or the fallback. */
  logger?: Logger;
}

/** The title of a thread whose first message has no text. */
export const DEFAULT_TITLE = "New Conversation";
/** Characters of the user's message a fallback title keeps (the "..." after them is not counted). */
export const FALLBACK_TITLE_CHARS = 50;
/** Characters of each side of the exchange shown to the title model. */
const EXCERPT_CHARS = 500;

/** Default title prompt. */
export const DEFAULT_TITLE_PROMPT = `Write a title of at most {max_words} words for the conversation below. Use the language of the user's message.

User: {user_msg}
Assistant: {assistant_msg}

Answer with the title alone: no quotes, no final period, no explanation.`;

const FRAMEWORK_BLOCKS = /^\s*<(uploaded_files|current_uploads)>[\s\S]*?<\/\1>\s*/;

const THINKING = /<think>[\s\S]*?(<\/think>|$)/gi;
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Length in code points (what `max_chars` counts, as in DeerFlow's Python). */
function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** The longest prefix of at most `max` code points that ends on a grapheme boundary (no half emoji or accent). */
function cutAtGrapheme(text: string, max: number): string {
  let kept = "";
  let count = 0;
  for (const { segment } of graphemes.segment(text)) {
    const size = charCount(segment);
    if (count + size > max) break;
    kept += segment;
    count += size;
  }
  return kept;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The user's own words in a human message: its original content when recorded, minus injected blocks. */
function userText(message: BaseMessage): string {
  const original = message.additional_kwargs?.original_user_content;
  const text = typeof original === "string" ? original : message.text;
  return text.replace(FRAMEWORK_BLOCKS, "");
}

/**
 * A title from the user's message, cut between graphemes; "New Conversation" when it has no text. A message
 * longer than 50 characters (or `maxChars` if smaller) keeps its first 50 and gets "..." after them; when
 * `maxChars` leaves no room for those 53, fewer are kept so the title, "..." included, fits `maxChars`.
 */
export function fallbackTitle(text: string, maxChars: number = TITLE_DEFAULTS.max_chars): string {
  const clean = collapse(text);
  if (clean === "") return DEFAULT_TITLE;
  const limit = Math.max(1, Math.min(FALLBACK_TITLE_CHARS, maxChars));
  if (charCount(clean) <= limit) return clean;
  const kept = Math.min(FALLBACK_TITLE_CHARS, maxChars - 3);
  return kept > 0 ? `${cutAtGrapheme(clean, kept).trimEnd()}...` : cutAtGrapheme(clean, limit);
}

/**
 * Cleans a model's title: drops `<think>` blocks, a "Title:" label, surrounding quotes and markdown, and
 * a final period; keeps the first line; cuts to `maxWords` words and `maxChars` characters. Returns ""
 * when nothing usable is left.
 */
export function cleanTitle(raw: string, limits: { maxWords: number; maxChars: number }): string {
  let text = raw.replace(THINKING, "");
  text =
    text
      .split("\n")
      .map((line) => line.trim())
      .find((line) => line !== "") ?? "";
  text = text
    .replace(/\*\*|__/g, "")
    .replace(/^#+\s*/, "")
    .replace(/^title\s*:\s*/i, "");
  text = text.replace(/^["'“”‘’`«»]+|["'“”‘’`«»]+$/g, "").replace(/[.。]+$/, "");
  const words = collapse(text).split(" ").filter(Boolean).slice(0, Math.max(1, limits.maxWords));
  let title = words.join(" ");
  if (charCount(title) > limits.maxChars) title = cutAtGrapheme(title, limits.maxChars).trimEnd();
  return title;
}

/** Fills the title prompt template. */
export function renderTitlePrompt(
  template: string,
  values: { maxWords: number; userMessage: string; assistantMessage: string },
): string {
  const fill = {
    max_words: String(values.maxWords),
    user_msg: values.userMessage.slice(0, EXCERPT_CHARS),
    assistant_msg: values.assistantMessage.slice(0, EXCERPT_CHARS),
  };
  // One pass, so placeholder-like text inside the messages is never substituted.
  return template.replace(/\{(max_words|user_msg|assistant_msg)\}/g, (_, key: keyof typeof fill) => fill[key]);
}

/**
 * The first exchange of a thread: the first user message and the AI text that answered it, without the
 * model's `<think>` block (its private reasoning must not be sent on to the title model).
 */
export function firstExchange(messages: readonly BaseMessage[]): { user: string; assistant: string } | undefined {
  const userIndex = messages.findIndex(
    (message) => HumanMessage.isInstance(message) && !message.additional_kwargs?.hide_from_ui,
  );
  if (userIndex < 0) return undefined;
  const replies = messages.slice(userIndex + 1).filter((message) => AIMessage.isInstance(message));
  if (replies.length === 0) return undefined;
  const visible = (message: BaseMessage) => message.text.replace(THINKING, "").trim();
  const answered = replies.find((message) => visible(message) !== "") ?? replies[0]!; // replies is not empty
  return { user: userText(messages[userIndex]!), assistant: visible(answered) };
}

/**
 * Sets `title` after the first complete exchange (`afterAgent`).
 *
 * @example
 * createAgent({ model, tools, middleware: [titleMiddleware({ model: titleModel, maxWords: 6, maxChars: 60 })] });
 */
export function titleMiddleware(options: TitleOptions = {}) {
  const maxWords = options.maxWords ?? TITLE_DEFAULTS.max_words;
  const maxChars = options.maxChars ?? TITLE_DEFAULTS.max_chars;
  const template = options.promptTemplate ?? DEFAULT_TITLE_PROMPT;
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  const templateProblem = titleTemplateProblem(template);
  // Said once, here: every thread then gets the fallback title without a model call.
  if (options.model && templateProblem)
    warn(
      `title: the prompt template is not usable (${templateProblem}); titles will be the start of the user's message.`,
    );
  const model = templateProblem ? undefined : options.model;

  const generate = async (exchange: { user: string; assistant: string }, signal?: AbortSignal): Promise<string> => {
    if (!model) return "";
    try {
      const prompt = renderTitlePrompt(template, {
        maxWords,
        userMessage: exchange.user,
        assistantMessage: exchange.assistant,
      });
      const reply = await model.invoke([new HumanMessage(prompt)], {
        tags: ["middleware:title", "langsmith:nostream"],
        ...(signal ? { signal } : {}),
      });
      return cleanTitle(reply.text, { maxWords, maxChars });
    } catch (error) {
      warn(
        `title: the title model failed (${error instanceof Error ? error.message : String(error)}); using the start of the user's message.`,
      );
      return "";
    }
  };

  return createMiddleware({
    name: "title",
    stateSchema: threadStateSubset("title"),
    afterAgent: async (state, runtime) => {
      if (state.title) return undefined;
      const exchange = firstExchange(state.messages);
      if (!exchange) return undefined;
      const generated = await generate(exchange, runtime.signal);
      const title = generated || fallbackTitle(exchange.user, maxChars);
      options.logger?.debug(`set "${title}" (${generated ? "from the title model" : "from the user's message"})`);
      return { title };
    },
  });
}
