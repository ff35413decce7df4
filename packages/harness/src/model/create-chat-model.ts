/**
 * Turns a `models:` entry into a chat model instance.
 *
 * It always builds an instance (never a "provider:model" string): given a string, langchain's
 * createAgent switches OpenAI models to the Responses API, which most OpenAI-compatible servers
 * (DeepSeek, vLLM, LM Studio, Ollama's /v1) do not have.
 *
 * Every client gets a fetch with a whole-response deadline (see deadline-fetch.ts) and no retries of its
 * own: retries happen in one place, the model-retry middleware, so they are counted and reported once.
 * OpenAI-compatible clients also get the stream-head mending of openai-stream-fetch.ts (a first delta
 * without a role), and keep the finish reason of a streamed answer on the message (see
 * FinishReasonCompletions in finish-reason-completions.ts).
 *
 * The provider SDKs load on demand (chat-model-providers.ts): await `loadChatModelProviders` for the
 * entries before building their models.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ChatOpenAIFields } from "@langchain/openai";
import type { ModelEntry } from "../config/schema.js";
import { ConfigError, ModelError } from "../errors.js";
import { providerSdk } from "./chat-model-providers.js";
import { type ResponseShape, createDeadlineFetch } from "./deadline-fetch.js";
import { DemoChatModel } from "./demo-model.js";
import { createOpenAIStreamFetch } from "./openai-stream-fetch.js";
import { LLM_DEFAULTS } from "../config/defaults.js";

/** Deadline of one model call, whole response included, when neither the entry nor the caller sets one. */
export const DEFAULT_MODEL_TIMEOUT_SECONDS = LLM_DEFAULTS.timeout_seconds;

/** Options that depend on the run rather than on the entry. */
export interface CreateChatModelOptions {
  /** Merge `when_thinking_enabled` into the constructor options (the caller has checked support). */
  thinkingEnabled?: boolean;
  /** Deadline of one call in seconds, whole response included. Default: the entry's `timeout`, else 600. */
  timeoutSeconds?: number;
}

/** The endpoint an entry talks to, for messages. */
export function modelEndpoint(entry: ModelEntry): string | undefined {
  const configured = entry.base_url ?? entry.api_base;
  if (configured) return configured;
  if (entry.use === "openai") return "https://api.openai.com/v1";
  if (entry.use === "anthropic") return "https://api.anthropic.com";
  if (entry.use === "ollama") return "http://127.0.0.1:11434";
  return undefined;
}

/** `Model "name" at endpoint`, the prefix of every error about an entry. */
export function modelLabel(entry: ModelEntry): string {
  const endpoint = modelEndpoint(entry);
  return `Model "${entry.name}"${endpoint ? ` at ${endpoint}` : ""}`;
}

/**
 * Builds the chat model an entry describes.
 *
 * @example
 * await loadChatModelProviders(config.models);
 * const model = createChatModel({ name: "qwen", use: "openai", model: "qwen3", base_url: "http://localhost:8000/v1",
 *   supports_thinking: false, supports_vision: false });
 */
export function createChatModel(entry: ModelEntry, options: CreateChatModelOptions = {}): BaseChatModel {
  const modeOptions = (options.thinkingEnabled ? entry.when_thinking_enabled : entry.when_thinking_disabled) ?? {};
  const timeoutMs = (options.timeoutSeconds ?? entry.timeout ?? DEFAULT_MODEL_TIMEOUT_SECONDS) * 1000;
  const deadlineFetch = (shape: ResponseShape) => createDeadlineFetch({ timeoutMs, label: modelLabel(entry), shape });
  // The SDK's own timer only covers the headers; ours covers the whole response and must fire first.
  const sdkTimeoutMs = timeoutMs + 5000;
  switch (entry.use) {
    case "demo":
      return new DemoChatModel();
    case "openai": {
      const { extra_body, ...rest } = modeOptions as { extra_body?: Record<string, unknown> };
      const fields: ChatOpenAIFields = {
        model: requireModelId(entry),
        apiKey: entry.api_key ?? "not-needed",
        configuration: {
          baseURL: entry.base_url ?? entry.api_base,
          fetch: createOpenAIStreamFetch({ label: modelLabel(entry), fetch: deadlineFetch("openai") }),
        },
        maxTokens: entry.max_tokens,
        temperature: entry.temperature,
        timeout: sdkTimeoutMs,
        maxRetries: 0,
        onFailedAttempt: surfaceModelError,
        streamUsage: true,
        ...(extra_body ? { modelKwargs: extra_body } : {}),
        ...rest,
      };
      const { ChatOpenAI, FinishReasonCompletions } = providerSdk("openai");
      return new ChatOpenAI({ ...fields, completions: new FinishReasonCompletions(fields) });
    }
    case "anthropic":
      return new (providerSdk("anthropic").ChatAnthropic)({
        model: requireModelId(entry),
        apiKey: entry.api_key,
        anthropicApiUrl: entry.base_url ?? entry.api_base,
        maxTokens: entry.max_tokens ?? 8192,
        temperature: entry.temperature,
        maxRetries: 0,
        onFailedAttempt: surfaceModelError,
        clientOptions: { fetch: deadlineFetch("anthropic"), timeout: sdkTimeoutMs },
        ...modeOptions,
      });
    case "ollama":
      return new (providerSdk("ollama").ChatOllama)({
        model: requireModelId(entry),
        baseUrl: entry.base_url ?? entry.api_base,
        temperature: entry.temperature,
        numPredict: entry.max_tokens,
        maxRetries: 0,
        onFailedAttempt: surfaceModelError,
        fetch: deadlineFetch("any"),
        ...modeOptions,
      });
  }
}

/**
 * SDKs wrap what our fetch throws into "Connection error." / "Request timed out."; this rethrows our own
 * error (which names the model and says what happened) instead. Otherwise the error goes on unchanged.
 */
function surfaceModelError(error: unknown): void {
  const ours = findModelError(error);
  if (ours && ours !== error) throw ours;
}

/** The first `ModelError` in an error's cause chain, if any. */
export function findModelError(error: unknown): ModelError | undefined {
  for (
    let current: unknown = error, depth = 0;
    current && depth < 16;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    if (current instanceof ModelError) return current;
  }
  return undefined;
}

function requireModelId(entry: ModelEntry): string {
  if (!entry.model) {
    throw new ConfigError(
      `Model "${entry.name}" (use: ${entry.use}) has no "model:" key. Set it to the provider's model id, e.g. model: gpt-4o-mini.`,
    );
  }
  return entry.model;
}
