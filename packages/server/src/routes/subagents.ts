/**
 * `GET /subagents`: the subagent kinds a lead may delegate to through `task` on this server, as
 * config.yaml makes them (the built-ins `general-purpose` and, when the sandbox offers bash, `bash`,
 * then `subagents.custom_agents`), each with its limits: turns, timeout, token budget, model and tools.
 * Also the server-wide switches and caps (`subagents.enabled`, `max_concurrent`, `max_total_per_run`).
 * Read-only and server-wide, like the skills list: the kinds live in config.yaml. DeerFlow has no such
 * route (its kinds are code); the web app's Subagents page reads it.
 */
import { createSubagentRegistry } from "@deerflow/harness";
import type { RegisterRoutes } from "../context.js";

/** Registers `GET /subagents`. */
export const registerSubagentRoutes: RegisterRoutes = (api, context) => {
  api.get("/subagents", (c) => {
    const config = context.config.subagents;
    const registry = createSubagentRegistry({
      bashAllowed: context.harness.setup.sandbox.bashAvailable,
      maxTurns: config.max_turns ?? undefined,
      timeoutSeconds: config.timeout_seconds,
      tokenBudget: config.token_budget,
      overrides: config.agents,
      customAgents: config.custom_agents,
    });
    const custom = new Set(Object.keys(config.custom_agents));
    return c.json({
      enabled: config.enabled,
      max_concurrent: config.max_concurrent,
      max_total_per_run: config.max_total_per_run,
      timeout_seconds: config.timeout_seconds,
      subagents: registry.list().map((kind) => ({
        name: kind.name,
        description: kind.description,
        builtin: !custom.has(kind.name),
        model: kind.model ?? null,
        max_turns: kind.maxTurns,
        timeout_seconds: kind.timeoutSeconds ?? config.timeout_seconds,
        max_tokens: kind.maxTokens ?? null,
        tools: kind.tools ?? null,
        disallowed_tools: kind.disallowedTools,
      })),
    });
  });
};
