/**
 * Whether a model entry can think, when `config.yaml` does not say.
 *
 * DeerFlow's frontend offers its Pro and Ultra modes (plan mode, subagents) only for a model whose
 * `/api/models` entry has `supports_thinking: true`, and a run that asks for thinking on a model without
 * it runs with thinking off. DeerFlow defaults the flag to false, so a config naming `deepseek-reasoner`
 * without the flag hid those modes. Here an explicit `supports_thinking` still decides; without it, the
 * `thinking:` key, the demo model (thinking changes nothing in its script, and it follows a plan) and a
 * short list of model ids known to reason answer true. Thinking only merges `when_thinking_enabled` into the
 * model's options, so a model wrongly reported as thinking runs as before.
 */

/** Model ids (the last `/` segment, lower case) of models that reason before answering. */
const REASONING_MODEL_IDS: readonly RegExp[] = [
  // DeepSeek's reasoning model, by its API name and its open weights (deepseek-r1:14b on Ollama).
  /^deepseek-(reasoner|r1)/,
  // Qwen's QwQ, and Qwen3, whose chat template switches thinking on and off.
  /^qwq/,
  /^qwen3/,
  // OpenAI's o-series and GPT-5 (not gpt-5-chat, which does not reason).
  /^o[134](-|$)/,
  /^gpt-5(?!-chat)/,
  // Claude Opus and Sonnet 4 and later (extended thinking).
  /^claude-(opus|sonnet)-([4-9]|\d\d)/,
];

/**
 * Whether a provider model id names a known reasoning model. A `vendor/` prefix (OpenRouter) is ignored.
 *
 * @example
 * isKnownReasoningModel("deepseek/deepseek-r1"); // true
 * isKnownReasoningModel("gpt-4o-mini"); // false
 */
export function isKnownReasoningModel(modelId: string): boolean {
  const id = modelId.toLowerCase().split("/").at(-1) ?? "";
  return REASONING_MODEL_IDS.some((pattern) => pattern.test(id));
}

/** What {@link supportsThinking} reads from a model entry. */
export interface ThinkingHints {
  use: string;
  name: string;
  model?: string;
  supports_thinking?: boolean;
  /** `true`/`false`, or DeerFlow's mapping of thinking settings (which says it thinks). */
  thinking?: boolean | Record<string, unknown>;
}

/**
 * `supports_thinking` if the entry gives it; else `thinking:` (true or a settings mapping), the demo
 * model, or a known reasoning model id (`model:`, else `name:`).
 *
 * @example
 * supportsThinking({ name: "r1", use: "openai", model: "deepseek-reasoner" }); // true
 * supportsThinking({ name: "r1", use: "openai", model: "deepseek-reasoner", supports_thinking: false }); // false
 */
export function supportsThinking(entry: ThinkingHints): boolean {
  if (entry.supports_thinking !== undefined) return entry.supports_thinking;
  if (entry.thinking !== undefined) return entry.thinking !== false;
  return entry.use === "demo" || isKnownReasoningModel(entry.model ?? entry.name);
}
