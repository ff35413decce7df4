/**
 * DeerFlow gateway routes the chat page reads before anything else (contract §B.4, tier 0): the models
 * a run may pick and the feature flags that gate optional UI. (Suggestions: routes/suggestions.ts;
 * channels: routes/channels.ts.)
 *
 * Model entries are described, never dumped: `api_key`, `base_url` and provider settings stay on the
 * server (DeerFlow's own route once leaked keys through a raw config dump).
 */
import { availableModels, type ModelEntry } from "@deerflow/harness";
import type { RegisterRoutes } from "../context.js";
import { notFound } from "../http/errors.js";

/** What the UI may know about a model. */
function describeModel(entry: ModelEntry, isDefault: boolean): Record<string, unknown> {
  return {
    id: entry.name,
    name: entry.name,
    model: entry.model ?? entry.name,
    display_name: entry.display_name ?? entry.name,
    description: entry.description ?? null,
    supports_thinking: entry.supports_thinking,
    supports_reasoning_effort: false,
    supports_vision: entry.supports_vision,
    is_default: isDefault,
  };
}

/** Registers models and features (auth: routes/auth.ts). */
export const registerGatewayMetaRoutes: RegisterRoutes = (api, context) => {
  const models = () => {
    const { models: entries } = availableModels(context.config, context.harness.setup.env);
    const defaultName = context.harness.defaultModel.entry.name;
    return entries.map((entry) => describeModel(entry, entry.name === defaultName));
  };

  api.get("/models", (c) =>
    c.json({
      models: models(),
      default_model: context.harness.defaultModel.entry.name,
      token_usage: { enabled: true },
    }),
  );
  api.get("/models/:name", (c) => {
    const name = c.req.param("name");
    const found = models().find((model) => model.name === name);
    if (!found) throw notFound(`Model "${name.slice(0, 100)}"`);
    return c.json(found);
  });

  api.get("/features", (c) =>
    c.json({
      agents_api: { enabled: true },
      browser_control: { enabled: false },
      mcp_tasks: { enabled: false },
      memory: { enabled: context.config.memory.enabled },
      skills: { enabled: true },
      uploads: { enabled: true },
    }),
  );
};
