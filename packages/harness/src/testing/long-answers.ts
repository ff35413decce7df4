/**
 * Answers large enough to need many network reads: the ones that never arrived when a non-streamed
 * body took more than one read (issue 21). The harness, CLI and server tests each run them, so they
 * live in the kit.
 */
import type { FakeToolCall } from "./fake-script.js";

/** `text` repeated and cut to exactly `length` characters (never inside a surrogate pair). */
function repeatTo(text: string, length: number): string {
  const chars = Array.from(text.repeat(Math.ceil(length / text.length) + 1));
  let out = "";
  for (const char of chars) {
    if (out.length + char.length > length) break;
    out += char;
  }
  return out.padEnd(length, ".");
}

/** Long answers and tool calls for end-to-end tests of delivery in pieces. */
export const longAnswers = Object.freeze({
  /** 2,500 characters of Chinese with emoji (three and four UTF-8 bytes each). */
  chinese: repeatTo("网络分块传输的回答必须完整到达🚀，包括表情符号😀和标点。", 2500),
  /** 70,000 characters of English with line breaks, tabs and quotes (escaped in JSON). */
  english70k: repeatTo('Line of a long answer with "quotes", a tab\tand a newline.\n', 70_000),
  /** 100,000 characters for a `write_file` call: mixed scripts, emoji, quotes, backslashes, newlines. */
  file100k: repeatTo('数据 row "α\\β" 🚀 {json: [1, 2]}\n', 100_000),
  /** `count` small `ls` calls of the workspace, for one answer. */
  lsCalls(count: number): FakeToolCall[] {
    return Array.from({ length: count }, () => ({
      name: "ls",
      arguments: { description: "List the workspace", path: "/mnt/user-data/workspace" },
    }));
  },
});
