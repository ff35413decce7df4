/**
 * `setup_agent` and `update_agent`, DeerFlow's tools for making and refining a custom agent from a chat.
 * `setup_agent` is offered in the bootstrap conversation (`is_bootstrap` with the new agent's name), where
 * the model interviews the user and then saves the soul it wrote; `update_agent` is offered to a custom
 * agent so it can change its own soul and settings when the user asks. Both write through the agent
 * store for the run's user only, and a change takes effect on the next turn (the graph is rebuilt from
 * the new files). Failures come back as error ToolMessages the model can read and retry.
 */
import { ToolMessage } from "@langchain/core/messages";
import { tool, type ToolRuntime } from "@langchain/core/tools";
import { z } from "zod";
import type { AgentStore } from "../custom-agents/agent-store.js";

/** Who the tools act for. */
export interface AgentToolsOptions {
  store: AgentStore;
  agentName: string;
  owner: string | null;
  /** Throws when a model name is not configured (the same check a run makes). */
  checkModel(name: string): void;
}

const NULLISH = new Set(["null", "none", "undefined"]);
/** Models sometimes send "null" for a field they mean to leave alone. */
const orNull = <T>(value: T | string | null | undefined): T | undefined =>
  value === null || value === undefined || (typeof value === "string" && NULLISH.has(value.trim().toLowerCase()))
    ? undefined
    : (value as T);

function reply(runtime: ToolRuntime, name: string, content: string, failed = false): ToolMessage {
  return new ToolMessage({
    name,
    tool_call_id: runtime.toolCallId ?? runtime.toolCall?.id ?? "",
    content: failed ? `Error: ${content}` : content,
    ...(failed ? { status: "error" as const } : {}),
  });
}

/**
 * The `setup_agent` tool: saves the new agent's soul, description and skills (an upsert, so the model may
 * call it again after the user asks for changes).
 *
 * @example
 * tools.push(createSetupAgentTool({ store, agentName: "researcher", owner: null, checkModel }));
 */
export function createSetupAgentTool(options: AgentToolsOptions) {
  return tool(
    async (input: { soul: string; description: string; skills?: string[] | null }, runtime: ToolRuntime) => {
      if (!input.soul?.trim())
        return reply(runtime, "setup_agent", "soul is empty; write the agent's SOUL.md and call again.", true);
      const settings = {
        description: input.description ?? "",
        ...(orNull(input.skills) === undefined ? {} : { skills: input.skills }),
      };
      try {
        if (options.store.get(options.agentName, options.owner))
          options.store.update(options.agentName, { settings, soul: input.soul }, options.owner);
        else options.store.create(options.agentName, { settings, soul: input.soul }, options.owner);
      } catch (error) {
        return reply(runtime, "setup_agent", (error as Error).message, true);
      }
      return reply(runtime, "setup_agent", `Agent '${options.agentName.toLowerCase()}' created successfully!`);
    },
    {
      name: "setup_agent",
      description:
        "Save the custom agent being set up in this conversation: its SOUL.md (persona, values and standing " +
        "instructions), a one-line description, and optionally the skills it may use.",
      schema: z.object({
        soul: z.string().describe("The full SOUL.md content"),
        description: z.string().describe("One line saying what the agent does"),
        skills: z
          .array(z.string())
          .nullish()
          .describe("Skill names the agent may use; omit for every enabled skill, [] for none"),
      }),
    },
  );
}

/**
 * The `update_agent` tool: replaces the fields given (soul is a full replacement), keeps the rest.
 *
 * @example
 * tools.push(createUpdateAgentTool({ store, agentName: "researcher", owner: null, checkModel }));
 */
export function createUpdateAgentTool(options: AgentToolsOptions) {
  return tool(
    async (
      input: {
        soul?: string | null;
        description?: string | null;
        skills?: string[] | string | null;
        tool_groups?: string[] | string | null;
        model?: string | null;
      },
      runtime: ToolRuntime,
    ) => {
      const soul = orNull<string>(input.soul);
      const settings: Record<string, unknown> = {};
      for (const key of ["description", "skills", "tool_groups", "model"] as const) {
        const value = orNull(input[key]);
        if ((key === "skills" || key === "tool_groups") && typeof value === "string")
          return reply(runtime, "update_agent", `${key} must be a list of names, or left out to keep it.`, true);
        if (value !== undefined) settings[key] = value;
      }
      if (soul === undefined && Object.keys(settings).length === 0)
        return reply(
          runtime,
          "update_agent",
          "no fields given. Pass at least one of soul, description, skills, tool_groups, model.",
          true,
        );
      if (soul !== undefined && !soul.trim())
        return reply(runtime, "update_agent", "soul is empty; omit it to keep the current SOUL.md.", true);
      try {
        if (typeof settings.model === "string") options.checkModel(settings.model);
        options.store.update(options.agentName, { settings, ...(soul === undefined ? {} : { soul }) }, options.owner);
      } catch (error) {
        return reply(runtime, "update_agent", (error as Error).message, true);
      }
      const changed = [...Object.keys(settings), ...(soul === undefined ? [] : ["soul"])];
      return reply(
        runtime,
        "update_agent",
        `Agent '${options.agentName.toLowerCase()}' updated. Changed: ${changed.join(", ")}. The change takes effect on the next turn.`,
      );
    },
    {
      name: "update_agent",
      description:
        "Persist changes to this custom agent's own SOUL.md and settings. Pass only the fields to change; " +
        "soul replaces the whole SOUL.md, so start from the current one. skills=[] disables every skill.",
      schema: z.object({
        soul: z.string().nullish().describe("Full replacement SOUL.md"),
        description: z.string().nullish().describe("New one-line description"),
        // A string is accepted so "null" (sent for "unchanged") can be read as absent.
        skills: z
          .union([z.array(z.string()), z.string()])
          .nullish()
          .describe("Skill whitelist; [] for none"),
        tool_groups: z
          .union([z.array(z.string()), z.string()])
          .nullish()
          .describe("Tool groups: file:read, file:write, bash, web"),
        model: z.string().nullish().describe("A configured model name"),
      }),
    },
  );
}
