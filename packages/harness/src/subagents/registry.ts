/**
 * Which subagent kinds a lead may delegate to, resolved once when the agent is built.
 *
 * Merges the built-ins with custom kinds and per-kind overrides given as literal options (the same keys
 * as `subagents.custom_agents` / `subagents.agents` in config.yaml), so a bad entry fails at construction
 * and the `task` tool only ever looks names up.
 */
import { ConfigError } from "../errors.js";
import { BASH_SUBAGENT, GENERAL_PURPOSE_SUBAGENT, SUBAGENT_DISALLOWED_TOOLS } from "./builtins.js";
import type { SubagentType } from "./types.js";

/** Settings of one subagent kind, with config.yaml's key names. */
export interface SubagentTypeSettings {
  description?: string;
  system_prompt?: string;
  tools?: string[] | null;
  disallowed_tools?: string[];
  /** A model name from config, or `"inherit"` (the default) for the parent's model. */
  model?: string;
  max_turns?: number;
  timeout_seconds?: number;
  /** This kind's token budget, replacing `subagents.token_budget`; `enabled` defaults to true. */
  token_budget?: SubagentTokenBudget;
}

/** A subagent run's token budget, with config.yaml's key names. */
export interface SubagentTokenBudget {
  enabled?: boolean;
  max_tokens: number;
}

/** Options of {@link createSubagentRegistry}. */
export interface SubagentRegistryOptions {
  /** Whether the sandbox lets the model run shell commands; the `bash` kind exists only then. Default false. */
  bashAllowed?: boolean;
  /** Turn budget for the built-ins, replacing their defaults (150 / 60). */
  maxTurns?: number | null;
  /** Timeout for the built-ins; unset, the `task` tool's default applies. */
  timeoutSeconds?: number;
  /** Token budget of every kind that sets none (config `subagents.token_budget`). Default: none. */
  tokenBudget?: SubagentTokenBudget;
  /** Per-kind overrides of `max_turns`, `timeout_seconds`, `model` and `token_budget` (config `subagents.agents`). */
  overrides?: Record<string, SubagentTypeSettings>;
  /** Extra kinds (config `subagents.custom_agents`). Defaults: 50 turns, 900 s, the parent's model. */
  customAgents?: Record<string, SubagentTypeSettings>;
  /** The kinds a custom agent may delegate to (its `subagents` setting); absent: every kind. */
  allowed?: readonly string[];
}

/** The resolved set of subagent kinds. */
export interface SubagentRegistry {
  /** The kind called `name`, or undefined when it does not exist or is unavailable here. */
  get(name: string): SubagentType | undefined;
  /** Every available kind, built-ins first. */
  list(): SubagentType[];
  /** The available kinds' names, in `list()` order. */
  names(): string[];
  /** The error text for a `subagent_type` that cannot be used, naming the available kinds. */
  unknownTypeMessage(name: string): string;
}

const CUSTOM_DEFAULT_MAX_TURNS = 50;
const CUSTOM_DEFAULT_TIMEOUT_SECONDS = 900;
const BASH_UNAVAILABLE =
  "The bash subagent is unavailable because this sandbox does not allow shell commands; use general-purpose or do the work directly.";

/** `type` with the token cap `budget` sets; an absent or disabled budget leaves no `maxTokens`. */
function withBudget(type: SubagentType, budget: SubagentTokenBudget | undefined): SubagentType {
  const { maxTokens: _previous, ...rest } = type;
  return budget && budget.enabled !== false ? { ...rest, maxTokens: budget.max_tokens } : rest;
}

function modelOf(model: string | undefined): string | undefined {
  return model === undefined || model === "inherit" ? undefined : model;
}

function customType(name: string, settings: SubagentTypeSettings, tokenBudget?: SubagentTokenBudget): SubagentType {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) {
    throw new ConfigError(
      `Custom subagent name "${name}" is not usable as a subagent_type. Use letters, digits, "-", "_" or "." (for example "researcher").`,
    );
  }
  const type: SubagentType = {
    name,
    description: settings.description?.trim() || `Custom subagent "${name}".`,
    systemPrompt: settings.system_prompt?.trim() || GENERAL_PURPOSE_SUBAGENT.systemPrompt,
    tools: settings.tools ?? null,
    disallowedTools: [...new Set([...SUBAGENT_DISALLOWED_TOOLS, ...(settings.disallowed_tools ?? [])])],
    model: modelOf(settings.model),
    maxTurns: settings.max_turns ?? CUSTOM_DEFAULT_MAX_TURNS,
    timeoutSeconds: settings.timeout_seconds ?? CUSTOM_DEFAULT_TIMEOUT_SECONDS,
  };
  return withBudget(type, settings.token_budget ?? tokenBudget);
}

function applyOverride(type: SubagentType, override: SubagentTypeSettings | undefined): SubagentType {
  if (override === undefined) return type;
  const updated: SubagentType = {
    ...type,
    maxTurns: override.max_turns ?? type.maxTurns,
    timeoutSeconds: override.timeout_seconds ?? type.timeoutSeconds,
    model: override.model === undefined ? type.model : modelOf(override.model),
  };
  return override.token_budget === undefined ? updated : withBudget(updated, override.token_budget);
}

/**
 * Resolves the available subagent kinds. Throws `ConfigError` for a custom kind that reuses a built-in
 * name or has an unusable name, and for an override of a kind that does not exist.
 *
 * @example
 * const registry = createSubagentRegistry({
 *   bashAllowed: true,
 *   customAgents: { researcher: { description: "Finds sources", system_prompt: "You research…" } },
 * });
 * registry.names(); // ["general-purpose", "bash", "researcher"]
 */
export function createSubagentRegistry(options: SubagentRegistryOptions = {}): SubagentRegistry {
  const builtinDefaults = (type: SubagentType): SubagentType =>
    withBudget(
      {
        ...type,
        maxTurns: options.maxTurns ?? type.maxTurns,
        timeoutSeconds: options.timeoutSeconds ?? type.timeoutSeconds,
      },
      options.tokenBudget,
    );
  const known = new Set([GENERAL_PURPOSE_SUBAGENT.name, BASH_SUBAGENT.name]);
  const types: SubagentType[] = [builtinDefaults(GENERAL_PURPOSE_SUBAGENT)];
  if (options.bashAllowed) types.push(builtinDefaults(BASH_SUBAGENT));
  for (const [name, settings] of Object.entries(options.customAgents ?? {})) {
    if (known.has(name)) {
      throw new ConfigError(
        `Custom subagent "${name}" has the name of a built-in subagent. Rename it under subagents.custom_agents, or tune the built-in under subagents.agents.`,
      );
    }
    known.add(name);
    types.push(customType(name, settings, options.tokenBudget));
  }
  for (const name of Object.keys(options.overrides ?? {})) {
    if (!known.has(name)) {
      throw new ConfigError(
        `subagents.agents.${name} overrides a subagent that does not exist. Known subagents: ${[...known].join(", ")}.`,
      );
    }
  }
  const allowed = options.allowed ? new Set(options.allowed) : null;
  const resolved = types
    .map((type) => applyOverride(type, options.overrides?.[type.name]))
    .filter((type) => !allowed || allowed.has(type.name));
  const byName = new Map(resolved.map((type) => [type.name, type]));

  return {
    get: (name) => byName.get(name),
    list: () => [...resolved],
    names: () => resolved.map((type) => type.name),
    unknownTypeMessage: (name) => {
      const available = `Available: ${resolved.map((type) => type.name).join(", ")}.`;
      if (name === BASH_SUBAGENT.name && !byName.has(name)) return `${BASH_UNAVAILABLE} ${available}`;
      return `Unknown subagent type "${name}". ${available}`;
    },
  };
}
