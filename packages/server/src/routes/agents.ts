/**
 * DeerFlow's custom-agent routes, with its bodies, for its frontend's Agents pages: list, name check,
 * get, create, update, delete, and the user profile (USER.md). Each caller sees and changes only their
 * own agents (another user's agent of the same name is simply missing); the same agents are the
 * caller's LangGraph assistants (routes/assistants.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { type AgentDefinition, agentsDir, normaliseAgentDefinitionName, SETTING_KEYS } from "@deerflow/harness";
import { z } from "zod";
import { callerOf } from "../auth/caller.js";
import type { RegisterRoutes } from "../context.js";
import { HttpError } from "../http/errors.js";
import { parseBody, parseQuery } from "../http/validate.js";
import { checkSettings } from "../runs/agent-settings.js";

const names = z.array(z.string()).nullish();
const settingFields = {
  description: z.string().nullish(),
  model: z.string().nullish(),
  tool_groups: names,
  skills: names,
  mcp_servers: names,
  subagents: names,
  model_settings: z.object({ temperature: z.number().nullish(), max_tokens: z.number().int().nullish() }).nullish(),
  thinking_enabled: z.boolean().nullish(),
  reasoning_effort: z.enum(["low", "medium", "high"]).nullish(),
};
const CreateSchema = z.object({ name: z.string(), soul: z.string().default(""), ...settingFields });
const UpdateSchema = z.object({ soul: z.string().nullish(), ...settingFields });
const ProfileSchema = z.object({ content: z.string().default("") });

/** DeerFlow's AgentResponse (plus `mcp_servers` and `subagents`). */
function describe(agent: AgentDefinition) {
  const { settings } = agent;
  return {
    name: agent.name,
    description: settings.description ?? "",
    model: settings.model ?? null,
    tool_groups: settings.tool_groups ?? null,
    skills: settings.skills ?? null,
    mcp_servers: settings.mcp_servers ?? null,
    subagents: settings.subagents ?? null,
    model_settings: settings.model_settings ?? null,
    thinking_enabled: settings.thinking_enabled ?? null,
    reasoning_effort: settings.reasoning_effort ?? null,
    soul: agent.soul,
  };
}

/** A name as DeerFlow checks it: 422 saying what is allowed. */
function nameOf(raw: string): string {
  try {
    return normaliseAgentDefinitionName(raw);
  } catch (error) {
    throw new HttpError(422, (error as Error).message);
  }
}

/** Only the keys the body set: `null` clears, absent keeps. */
function changesOf(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(body).filter(
      ([key, value]) => (SETTING_KEYS as readonly string[]).includes(key) && value !== undefined,
    ),
  );
}

/** Registers `/agents` and `/user-profile`. */
export const registerAgentRoutes: RegisterRoutes = (api, context) => {
  const agents = context.harness.agents;
  const env = context.harness.setup.env;
  const missing = (name: string) => new HttpError(404, `Agent '${name}' not found`);

  api.get("/agents", (c) => c.json({ agents: agents.list(callerOf(c).userId).map(describe) }));
  api.get("/agents/check", (c) => {
    const { name } = parseQuery(c, z.object({ name: z.string() }));
    const key = nameOf(name);
    return c.json({ available: agents.get(key, callerOf(c).userId) === null, name: key });
  });
  api.get("/agents/:name", (c) => {
    const name = nameOf(c.req.param("name"));
    const agent = agents.get(name, callerOf(c).userId);
    if (!agent) throw missing(name);
    return c.json(describe(agent));
  });
  api.post("/agents", async (c) => {
    const body = await parseBody(c, CreateSchema);
    const name = nameOf(body.name);
    const settings = changesOf(body);
    checkSettings(context.config, env, settings);
    const owner = callerOf(c).userId;
    if (agents.get(name, owner)) throw new HttpError(409, `Agent '${name}' already exists`);
    return c.json(describe(agents.create(name, { settings, soul: body.soul }, owner)), 201);
  });
  api.put("/agents/:name", async (c) => {
    const name = nameOf(c.req.param("name"));
    const owner = callerOf(c).userId;
    if (!agents.get(name, owner)) throw missing(name);
    const body = await parseBody(c, UpdateSchema);
    const settings = changesOf(body);
    if (settings.description === null) settings.description = "";
    checkSettings(context.config, env, settings);
    const soul = body.soul ?? undefined;
    const updated = agents.update(name, { settings, ...(soul === undefined ? {} : { soul }) }, owner);
    return c.json(describe(updated));
  });
  api.delete("/agents/:name", (c) => {
    const name = nameOf(c.req.param("name"));
    if (!agents.delete(name, callerOf(c).userId)) throw missing(name);
    return c.body(null, 204);
  });

  // USER.md: the caller's profile, beside their agents.
  const profileFile = (owner: string | null) =>
    path.join(path.dirname(agentsDir(context.harness.home, owner)), "USER.md");
  api.get("/user-profile", (c) => {
    const file = profileFile(callerOf(c).userId);
    const content = fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim() : "";
    return c.json({ content: content || null });
  });
  api.put("/user-profile", async (c) => {
    const { content } = await parseBody(c, ProfileSchema);
    const file = profileFile(callerOf(c).userId);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content, "utf8");
    return c.json({ content: content || null });
  });
};
