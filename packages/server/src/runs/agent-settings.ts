/**
 * Agent settings from a client's body, checked once for both ways of making an agent: DeerFlow's
 * `/api/agents` bodies (settings as fields) and LangGraph assistants (settings in `context` or
 * `config.configurable`). A model that is not configured, a tool group nobody defines, or a key that
 * is no setting is a 422 naming it, before anything is written.
 */
import { type AgentChanges, type AppConfig, SETTING_KEYS, selectModel, TOOL_GROUPS } from "@deerflow/harness";
import { HttpError } from "../http/errors.js";

/** Run options an assistant may also carry (they are not agent settings, but are not errors either). */
const RUN_OPTION_KEYS = new Set([
  "agent_name",
  "is_plan_mode",
  "subagent_enabled",
  "max_concurrent_subagents",
  "disable_clarification",
  "thread_id",
]);

/** Checks settings the way a run would use them: the model exists, the tool groups are known. */
export function checkSettings(
  config: AppConfig,
  env: Record<string, string | undefined>,
  settings: Record<string, unknown>,
): void {
  const model = settings.model;
  if (typeof model === "string" && model) {
    try {
      selectModel(config, { modelName: model }, env);
    } catch (error) {
      throw new HttpError(422, (error as Error).message);
    }
  }
  const groups = settings.tool_groups;
  if (Array.isArray(groups)) {
    const known = new Set<string>([
      ...TOOL_GROUPS,
      ...config.tools.flatMap((tool) => (tool.group ? [tool.group] : [])),
    ]);
    const bad = groups.filter((group) => typeof group !== "string" || !known.has(group));
    if (bad.length > 0)
      throw new HttpError(
        422,
        `Unknown tool group ${bad.map((group) => JSON.stringify(group)).join(", ")}. Known groups: ${[...known].join(", ")}.`,
      );
  }
}

/**
 * An assistant's `config.configurable` and `context` as agent changes: `soul`, the settings
 * (`model_name` is read as `model`), run options ignored, anything else a 422.
 */
export function assistantChanges(
  configurable: Record<string, unknown> | null | undefined,
  context: Record<string, unknown> | null | undefined,
): { settings: NonNullable<AgentChanges["settings"]>; soul?: string } {
  const merged: Record<string, unknown> = { ...(configurable ?? {}), ...(context ?? {}) };
  const settings: Record<string, unknown> = {};
  let soul: string | undefined;
  for (const [key, value] of Object.entries(merged)) {
    if (key === "soul") {
      if (value !== null && typeof value !== "string") throw new HttpError(422, 'Invalid "soul": must be a string.');
      soul = (value as string | null) ?? "";
    } else if (key === "model_name") settings.model = value;
    else if ((SETTING_KEYS as readonly string[]).includes(key)) settings[key] = value;
    else if (!RUN_OPTION_KEYS.has(key))
      throw new HttpError(
        422,
        `Unknown assistant setting "${key}". An assistant is a custom agent; its context (or config.configurable) takes soul, model_name, ${SETTING_KEYS.join(", ")}.`,
      );
  }
  return { settings, ...(soul === undefined ? {} : { soul }) };
}
