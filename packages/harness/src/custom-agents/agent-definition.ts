/**
 * A custom agent: a name, a soul (SOUL.md: its persona and standing instructions) and its settings
 * (config.yaml, DeerFlow's AgentConfig plus `mcp_servers` and `subagents`). What a run with
 * `agent_name` applies: the soul goes into the system prompt, the settings choose the model and restrict
 * the tools, skills, MCP servers and subagent kinds. `null` (or absent) means "no restriction"; `[]`
 * means "none".
 */
import { z } from "zod";
import { ConfigError } from "../errors.js";

/** Agent names: letters, digits and "-" (DeerFlow's rule), stored lower-cased. */
export const AGENT_NAME = /^[A-Za-z0-9-]+$/;

/** The tool groups a custom agent may list in `tool_groups` (DeerFlow's names). */
export const TOOL_GROUPS = ["file:read", "file:write", "bash", "web"] as const;

/** Per-agent sampling overrides layered on the model entry (DeerFlow's `model_settings`). */
export const AgentModelSettings = z.strictObject({
  temperature: z.number().min(0).max(2).nullish(),
  max_tokens: z.number().int().min(1).max(200_000).nullish(),
});
export type AgentModelSettings = z.infer<typeof AgentModelSettings>;

const names = z.array(z.string().min(1)).nullish();

/**
 * The settings of config.yaml. Keys this version does not know (DeerFlow's `github:`) are kept, so an
 * edit never drops them.
 */
export const AgentSettings = z.looseObject({
  name: z.string().optional(),
  description: z.string().default(""),
  model: z.string().min(1).nullish(),
  tool_groups: names,
  skills: names,
  mcp_servers: names,
  subagents: names,
  model_settings: AgentModelSettings.nullish(),
  thinking_enabled: z.boolean().nullish(),
  reasoning_effort: z.enum(["low", "medium", "high"]).nullish(),
});
export type AgentSettings = z.infer<typeof AgentSettings>;

/** The fields a create or an edit may set (everything but the name). */
export const SETTING_KEYS = [
  "description",
  "model",
  "tool_groups",
  "skills",
  "mcp_servers",
  "subagents",
  "model_settings",
  "thinking_enabled",
  "reasoning_effort",
] as const;

/** A loaded agent. */
export interface AgentDefinition {
  /** Lower-cased name, the directory's. */
  name: string;
  settings: AgentSettings;
  /** SOUL.md, "" when there is none. */
  soul: string;
  /** The user who owns it; null: the home's local user. */
  owner: string | null;
  /** Its directory. */
  dir: string;
}

/**
 * Checks an agent name and returns it lower-cased; throws `ConfigError` saying what is allowed.
 *
 * @example
 * normaliseAgentDefinitionName("Research-Bot"); // "research-bot"
 */
export function normaliseAgentDefinitionName(name: string): string {
  if (typeof name !== "string" || !AGENT_NAME.test(name) || name.length > 64) {
    throw new ConfigError(
      `Agent name "${String(name)}" is not valid: use 1 to 64 letters, digits and "-" (for example "research-bot").`,
    );
  }
  return name.toLowerCase();
}

/** Checks `tool_groups` names; throws `ConfigError` naming the known groups. */
export function checkToolGroups(groups: readonly string[] | null | undefined, extra: readonly string[] = []): void {
  const known = new Set<string>([...TOOL_GROUPS, ...extra]);
  const bad = (groups ?? []).filter((group) => !known.has(group));
  if (bad.length > 0) {
    throw new ConfigError(
      `Unknown tool group${bad.length > 1 ? "s" : ""} ${bad.map((group) => `"${group}"`).join(", ")}. Known groups: ${[...known].join(", ")}.`,
    );
  }
}
