/**
 * The text of a message's content, which is either a string or a list of blocks (text, images,
 * reasoning, tool-use). Memory, the demo model and the CLI each want only what a reader sees: the text
 * blocks, joined.
 */
import type { BaseMessage } from "@langchain/core/messages";

/**
 * The text blocks of `content` joined by `separator` (empty blocks skipped); a string is returned as is.
 * Images, reasoning and other blocks are dropped.
 *
 * @example
 * ```ts
 * contentText([{ type: "text", text: "a" }, { type: "image_url", image_url: "…" }, { type: "text", text: "b" }], "\n"); // "a\nb"
 * ```
 */
export function contentText(content: BaseMessage["content"], separator = ""): string {
  if (typeof content === "string") return content;
  return content
    .map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : ""))
    .filter((text) => text !== "")
    .join(separator);
}
