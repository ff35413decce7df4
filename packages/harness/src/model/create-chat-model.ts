/**
 * Turns a `models:` entry into a chat model instance.
 *
 * It always builds an instance (never a "provider:model" string): given a string, langchain's
 * createAgent switches OpenAI models to the Responses API, which most OpenAI-compatible servers
 * (DeepSeek, vLLM, LM Studio, Ollama's /v1) do not have.
 */
import { ChatAnthropic } from "@langchain/anthropic";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatOllama } from "@langchain/ollama";
import { ChatOpenAI } from "@langchain/openai";
import type { ModelEntry } from "../config/schema.js";
import { ConfigError } from "../errors.js";
import { DemoChatModel } from "./demo-model.js";

/** Options that depend on the run rather than on the entry. */
export interface CreateChatModelOptions {
  /** Merge `when_thinking_enabled` into the constructor options (the caller has checked support). */
  thinkingEnabled?: boolean;
}

/**
 * Builds the chat model an entry describes.
 *
 * @example
 * const model = createChatModel({ name: "qwen", use: "openai", model: "qwen3", base_url: "http://localhost:8000/v1",
 *   supports_thinking: false, supports_vision: false });
 */
export function createChatModel(entry: ModelEntry, options: CreateChatModelOptions = {}): BaseChatModel {
  const modeOptions = (options.thinkingEnabled ? entry.when_thinking_enabled : entry.when_thinking_disabled) ?? {};
  switch (entry.use) {
    case "demo":
      return new DemoChatModel();
    case "openai": {
      const { extra_body, ...rest } = modeOptions as { extra_body?: Record<string, unknown> };
      return new ChatOpenAI({
        model: requireModelId(entry),
        apiKey: entry.api_key ?? "not-needed",
        configuration: { baseURL: entry.base_url ?? entry.api_base },
        maxTokens: entry.max_tokens,
        temperature: entry.temperature,
        timeout: entry.timeout === undefined ? undefined : entry.timeout * 1000,
        maxRetries: entry.max_retries ?? 2,
        streamUsage: true,
        ...(extra_body ? { modelKwargs: extra_body } : {}),
        ...rest,
      });
    }
    case "anthropic":
      return new ChatAnthropic({
        model: requireModelId(entry),
        apiKey: entry.api_key,
        anthropicApiUrl: entry.base_url ?? entry.api_base,
        maxTokens: entry.max_tokens ?? 8192,
        temperature: entry.temperature,
        maxRetries: entry.max_retries ?? 2,
        ...modeOptions,
      });
    case "ollama":
      return new ChatOllama({
        model: requireModelId(entry),
        baseUrl: entry.base_url ?? entry.api_base,
        temperature: entry.temperature,
        numPredict: entry.max_tokens,
        ...modeOptions,
      });
  }
}

function requireModelId(entry: ModelEntry): string {
  if (!entry.model) {
    throw new ConfigError(`Model "${entry.name}" (use: ${entry.use}) has no "model:" key. Set it to the provider's model id, e.g. model: gpt-4o-mini.`);
  }
  return entry.model;
}
