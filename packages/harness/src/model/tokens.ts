/**
 * Token accounting for model requests, offline.
 *
 * Summarization triggers on token counts, so a count that is too low means compaction never fires and
 * the thread dies at the provider's context limit (deer-flow#3103, #1602). Provider-reported usage is
 * missing while streaming on some providers, and langchain's `getNumTokens` downloads BPE ranks at run
 * time (it stalls ~84 s offline), so we count locally: with the model's tiktoken encoding when its name
 * maps to one (ranks bundled in js-tiktoken), otherwise with a fast approximate counter that counts
 * non-ASCII characters (CJK, emoji) as a token each instead of a quarter token.
 */
import { createRequire } from "node:module";
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";

/** Tokens every message costs besides its content (role, separators), as in OpenAI's accounting. */
const PER_MESSAGE_OVERHEAD = 3;
/** Tokens that prime the assistant's reply. */
const REPLY_PRIMING = 3;
/** Flat cost of a non-text block (image, audio, file): its bytes are never sent as text tokens. */
const MEDIA_BLOCK_TOKENS = 1000;

/** The tiktoken encodings we can load from js-tiktoken's bundled ranks. */
export type EncodingName = "o200k_base" | "cl100k_base";

/** A tool as `countTokens` accepts it: a langchain tool or an already-converted JSON schema. */
export type CountableTool = StructuredToolInterface | Record<string, unknown>;

/** Options of {@link countTokens}. */
export interface CountTokensOptions {
  /** Model name (e.g. "gpt-4o", "openai/gpt-5-mini"); picks the tiktoken encoding when known. */
  model?: string;
  /** Tools bound to the request; their JSON schemas are counted. */
  tools?: readonly CountableTool[];
  /** System prompt sent before the messages. */
  systemPrompt?: string;
}

/** Counts a list of messages, as a request costs them; the shape summarization takes. */
export type TokenCounter = (messages: BaseMessage[]) => number;

/** Counts one text's tokens; the shape the memory budget takes. */
export type TextTokenCounter = (text: string) => number;

const encoders = new Map<EncodingName, Tiktoken>();
const requireRanks = createRequire(import.meta.url);

/**
 * The tiktoken encoding for a model name, or null when none is known. Provider prefixes ("openai/",
 * "azure/") are ignored. o200k for gpt-4o, gpt-4.1, gpt-5 and the o-series; cl100k for gpt-4 and gpt-3.5.
 */
export function encodingForModel(model: string | undefined): EncodingName | null {
  if (!model) return null;
  const name = model.toLowerCase().split("/").at(-1) ?? "";
  if (/^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o\d)/.test(name)) return "o200k_base";
  if (/^(gpt-4|gpt-3\.5|gpt-35|text-embedding-3|text-embedding-ada)/.test(name)) return "cl100k_base";
  return null;
}

/** Loads (once per process) the encoder for an encoding from the ranks bundled in js-tiktoken. */
export function getEncoder(encoding: EncodingName): Tiktoken {
  let encoder = encoders.get(encoding);
  if (encoder === undefined) {
    const ranks = requireRanks(`js-tiktoken/ranks/${encoding}`) as TiktokenBPE;
    encoder = new Tiktoken(ranks);
    encoders.set(encoding, encoder);
  }
  return encoder;
}

/**
 * Fast estimate of a text's tokens: ASCII at about four characters a token, every other code point
 * (CJK, emoji, accented letters) a token each. It over-counts rather than under-counts, so a trigger
 * set from it fires early rather than never.
 */
export function approximateTextTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const char of text) {
    if (char.charCodeAt(0) < 128) ascii += 1;
    else other += 1;
  }
  return Math.ceil(ascii / 4) + other;
}

/** A function counting one text's tokens with the model's encoding, or approximately. */
export function textTokenCounter(model?: string): TextTokenCounter {
  const encoding = encodingForModel(model);
  if (encoding === null) return approximateTextTokens;
  const encoder = getEncoder(encoding);
  // Special-token strings in user text ("<|endoftext|>") are plain text here, not an error.
  return (text) => (text.length === 0 ? 0 : encoder.encode(text, [], []).length);
}

/** What a message costs in the request, measured with `countText`. */
export function messageTokens(message: BaseMessage, countText: (text: string) => number): number {
  let total = PER_MESSAGE_OVERHEAD + contentTokens(message.content, countText);
  if (message.name) total += countText(message.name) + 1;
  if (AIMessage.isInstance(message)) {
    for (const call of message.tool_calls ?? [])
      total += countText(`${call.name}${JSON.stringify(call.args ?? {})}`) + 6;
    for (const call of message.invalid_tool_calls ?? []) total += countText(`${call.name ?? ""}${call.args ?? ""}`) + 6;
  }
  if (ToolMessage.isInstance(message)) total += countText(message.tool_call_id ?? "");
  return total;
}

function contentTokens(content: BaseMessage["content"], countText: (text: string) => number): number {
  if (typeof content === "string") return countText(content);
  let total = 0;
  for (const block of content as unknown[]) {
    if (typeof block === "string") total += countText(block);
    else if (block && typeof block === "object" && (block as { type?: unknown }).type === "text")
      total += countText(String((block as { text?: unknown }).text ?? ""));
    else total += MEDIA_BLOCK_TOKENS;
  }
  return total;
}

function toolSchemaText(tool: CountableTool): string {
  const isLangchainTool = typeof (tool as { name?: unknown }).name === "string" && "schema" in tool;
  return JSON.stringify(isLangchainTool ? convertToOpenAITool(tool as StructuredToolInterface) : tool);
}

/**
 * Counts the tokens a request costs: messages, system prompt and tool schemas. Never touches the network.
 *
 * @example
 * const used = countTokens(state.messages, { model: "gpt-4o", systemPrompt, tools });
 */
export function countTokens(messages: readonly BaseMessage[], options: CountTokensOptions = {}): number {
  const countText = textTokenCounter(options.model);
  let total = sumMessageTokens(messages, countText);
  if (options.systemPrompt) total += PER_MESSAGE_OVERHEAD + countText(options.systemPrompt);
  for (const tool of options.tools ?? []) total += countText(toolSchemaText(tool));
  return total;
}

function sumMessageTokens(messages: readonly BaseMessage[], countText: (text: string) => number): number {
  let total = messages.length > 0 ? REPLY_PRIMING : 0;
  for (const message of messages) total += messageTokens(message, countText);
  return total;
}

/**
 * A `(messages) => number` counter for one model, with its encoder resolved once.
 *
 * @example
 * const counter = createTokenCounter("gpt-4o-mini");
 * counter([new HumanMessage("hello")]); // 7
 */
export function createTokenCounter(modelName?: string): TokenCounter {
  const countText = textTokenCounter(modelName);
  return (messages) => sumMessageTokens(messages, countText);
}
