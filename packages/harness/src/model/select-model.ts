/**
 * Chooses the model of a run: the requested name, else the first configured model; with no `models:` at
 * all, a model is derived from the environment (OpenAI-compatible, then Anthropic, then the offline
 * demo model). An unknown name fails before any model call, listing the names that would work.
 */
import type { AppConfig, ModelEntry } from "../config/schema.js";
import { isKnownReasoningModel } from "../config/thinking-support.js";
import { ConfigError } from "../errors.js";

/** The outcome of model selection, with a sentence the CLI can show about how it was chosen. */
export interface ModelSelection {
  entry: ModelEntry;
  /** Thinking after the support check. */
  thinkingEnabled: boolean;
  /** How the model was picked, e.g. `demo (no models in config and no OPENAI_API_KEY/ANTHROPIC_API_KEY)`. */
  reason: string;
  warnings: string[];
}

/** The models a run may use: the configured ones, else the one the environment implies. */
export function availableModels(
  config: AppConfig,
  env: Record<string, string | undefined> = process.env,
): { models: ModelEntry[]; reason: string } {
  if (config.models.length > 0) return { models: [...config.models], reason: `from ${config.source ?? "config"}` };
  // The same rules as a configured entry without supports_thinking (config/thinking-support.ts).
  const base = (model: string) => ({ supports_thinking: isKnownReasoningModel(model), supports_vision: false });
  if (env.OPENAI_API_KEY) {
    const model = env.OPENAI_MODEL || "gpt-4o-mini";
    return {
      models: [
        {
          ...base(model),
          name: model,
          use: "openai",
          model,
          api_key: env.OPENAI_API_KEY,
          base_url: env.OPENAI_BASE_URL || undefined,
        },
      ],
      reason: `OpenAI-compatible from OPENAI_API_KEY${env.OPENAI_BASE_URL ? ` at ${env.OPENAI_BASE_URL}` : ""}`,
    };
  }
  if (env.ANTHROPIC_API_KEY) {
    const model = env.ANTHROPIC_MODEL || "claude-sonnet-4-5";
    return {
      models: [{ ...base(model), name: model, use: "anthropic", model, api_key: env.ANTHROPIC_API_KEY }],
      reason: "Anthropic from ANTHROPIC_API_KEY",
    };
  }
  return {
    // The demo model reports thinking so that DeerFlow's frontend offers plan mode, which its script follows.
    models: [
      {
        name: "demo",
        display_name: "Demo model (scripted, offline)",
        use: "demo",
        supports_thinking: true,
        supports_vision: false,
      },
    ],
    reason:
      "the built-in demo model: a scripted offline model, not a real LLM (no models in config, no OPENAI_API_KEY or ANTHROPIC_API_KEY)",
  };
}

/**
 * Picks the run's model entry and settles whether thinking is on.
 *
 * @example
 * const { entry, thinkingEnabled } = selectModel(config, { modelName: "qwen3", thinkingEnabled: true });
 */
export function selectModel(
  config: AppConfig,
  request: { modelName?: string; thinkingEnabled?: boolean } = {},
  env: Record<string, string | undefined> = process.env,
): ModelSelection {
  const { models, reason } = availableModels(config, env);
  const warnings: string[] = [];
  let entry = models[0]!;
  if (request.modelName) {
    const found = models.find((model) => model.name === request.modelName);
    if (!found) {
      const names = models.map((model) => model.name).join(", ");
      throw new ConfigError(
        `Model "${request.modelName}" is not configured. Configured models: ${names}. Add it under models: in config.yaml or pass --model with one of those.`,
        { code: "model_unknown" },
      );
    }
    entry = found;
  }
  let thinkingEnabled = request.thinkingEnabled ?? false;
  if (thinkingEnabled && !entry.supports_thinking) {
    warnings.push(
      `Model "${entry.name}" does not support thinking (supports_thinking is false); running with thinking off.`,
    );
    thinkingEnabled = false;
  }
  return { entry, thinkingEnabled, reason: request.modelName ? "requested" : reason, warnings };
}
