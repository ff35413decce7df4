/**
 * Assistants: `lead_agent` plus one per custom agent of the caller. Search, count, get, graph, schemas
 * and subgraphs read them; create, update (a new version), delete, versions and latest map onto the
 * caller's custom agents (docs/agents.md), so an SDK user makes an agent with
 * `client.assistants.create({graphId: "lead_agent", name, context: {soul, ...}})` and runs it by its id.
 * `lead_agent` itself cannot be changed.
 */
import { z } from "zod";
import { callerOf } from "../auth/caller.js";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { HttpError, notFound } from "../http/errors.js";
import { parseBody } from "../http/validate.js";
import { assistantChanges, checkSettings } from "../runs/agent-settings.js";
import { agentAssistant, agentContext, type Assistant, findAssistant, GRAPH_ID } from "../runs/assistants.js";
import { contains } from "../runs/sqlite-store.js";

const Json = z.record(z.string(), z.unknown());
const CreateSchema = z.object({
  assistant_id: z.uuid().nullish(),
  graph_id: z.string(),
  config: z.object({ configurable: Json.nullish() }).loose().nullish(),
  context: Json.nullish(),
  metadata: Json.nullish(),
  if_exists: z.enum(["raise", "do_nothing"]).nullish(),
  name: z.string().nullish(),
  description: z.string().nullish(),
});
const UpdateSchema = CreateSchema.omit({ assistant_id: true, if_exists: true }).extend({
  graph_id: z.string().nullish(),
});
const VersionsSchema = z.object({
  metadata: Json.nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
});
const LatestSchema = z.object({ version: z.number().int().min(1) });

const SearchSchema = z.strictObject({
  graph_id: z.string().nullish(),
  name: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  sort_by: z.enum(["assistant_id", "graph_id", "name", "created_at", "updated_at"]).nullish(),
  sort_order: z.enum(["asc", "desc"]).nullish(),
  select: z.array(z.string()).nullish(),
});

/** JSON Schema of the run options a client may send in `context`. */
const CONTEXT_SCHEMA = {
  type: "object",
  properties: {
    model_name: { type: "string", description: "A model name from config.yaml" },
    thinking_enabled: { type: "boolean" },
    is_plan_mode: { type: "boolean", description: "Keep a todo list" },
    subagent_enabled: { type: "boolean", description: "Allow delegation to subagents" },
    max_concurrent_subagents: { type: "integer", minimum: 2, maximum: 4 },
    agent_name: { type: "string", pattern: "^[A-Za-z0-9-]+$" },
  },
};

function select(assistant: Assistant, fields: string[] | null | undefined): Record<string, unknown> {
  if (!fields?.length) return assistant as unknown as Record<string, unknown>;
  return Object.fromEntries(
    fields
      .filter((field) => field in assistant)
      .map((field) => [field, (assistant as unknown as Record<string, unknown>)[field]]),
  );
}

function checkGraph(graphId: string | null | undefined): void {
  if (graphId && graphId !== GRAPH_ID)
    throw new HttpError(422, `Unknown graph_id "${graphId}". This server has one graph: "${GRAPH_ID}".`);
}

/** The custom agent behind an assistant id of the caller's; 404 when there is none, 409 for lead_agent. */
function agentOf(context: ServerContext, owner: string | null, id: string): string {
  const assistant = findAssistant(context.assistants(owner), id);
  if (!assistant) throw notFound(`Assistant "${id}"`);
  if (assistant.name === GRAPH_ID)
    throw new HttpError(
      409,
      `"${GRAPH_ID}" is the built-in agent and cannot be changed. Create an assistant (a custom agent) instead.`,
    );
  return assistant.name;
}

/** Registers the assistant routes. */
export const registerAssistantRoutes: RegisterRoutes = (api, context) => {
  const agents = context.harness.agents;
  const { config } = context;
  const env = context.harness.setup.env;
  const current = (owner: string | null, name: string) =>
    agentAssistant(agents.get(name, owner)!, agents.record(name, owner));

  const filter = (owner: string | null, body: Pick<z.infer<typeof SearchSchema>, "graph_id" | "name" | "metadata">) =>
    context
      .assistants(owner)
      .filter(
        (assistant) =>
          (!body.graph_id || assistant.graph_id === body.graph_id) &&
          (!body.name || assistant.name.includes(body.name)) &&
          (!body.metadata || contains(assistant.metadata, body.metadata)),
      );
  const get = (owner: string | null, id: string) => {
    const assistant = findAssistant(context.assistants(owner), id);
    if (!assistant) throw notFound(`Assistant "${id}"`);
    return assistant;
  };

  api.post("/assistants", async (c) => {
    const owner = callerOf(c).userId;
    const body = await parseBody(c, CreateSchema);
    checkGraph(body.graph_id);
    if (!body.name)
      throw new HttpError(
        422,
        'Missing "name": an assistant here is a custom agent, and its name (letters, digits and "-") is the agent\'s name.',
      );
    const existing =
      findAssistant(context.assistants(owner), body.name.toLowerCase()) ??
      (body.assistant_id ? findAssistant(context.assistants(owner), body.assistant_id) : undefined);
    if (existing) {
      if (body.if_exists === "do_nothing") return c.json(existing);
      throw new HttpError(409, `Assistant "${existing.name}" already exists. Update it, or pick another name.`);
    }
    const changes = assistantChanges(body.config?.configurable as Record<string, unknown> | undefined, body.context);
    if (body.description !== undefined && body.description !== null) changes.settings.description = body.description;
    checkSettings(config, env, changes.settings);
    const created = agents.create(
      body.name,
      {
        settings: changes.settings,
        soul: changes.soul ?? "",
        metadata: body.metadata ?? {},
        ...(body.assistant_id ? { assistantId: body.assistant_id } : {}),
      },
      owner,
    );
    return c.json(current(owner, created.name));
  });
  api.patch("/assistants/:assistant_id", async (c) => {
    const owner = callerOf(c).userId;
    const name = agentOf(context, owner, c.req.param("assistant_id"));
    const body = await parseBody(c, UpdateSchema);
    checkGraph(body.graph_id);
    if (body.name && body.name.toLowerCase() !== name)
      throw new HttpError(422, `An assistant's name is its agent's name and cannot change ("${name}").`);
    const changes = assistantChanges(body.config?.configurable as Record<string, unknown> | undefined, body.context);
    if (body.description !== undefined) changes.settings.description = body.description ?? "";
    checkSettings(config, env, changes.settings);
    const record = agents.record(name, owner);
    agents.update(
      name,
      { ...changes, metadata: body.metadata ? { ...record.metadata, ...body.metadata } : undefined },
      owner,
    );
    return c.json(current(owner, name));
  });
  api.delete("/assistants/:assistant_id", (c) => {
    const owner = callerOf(c).userId;
    agents.delete(agentOf(context, owner, c.req.param("assistant_id")), owner);
    return c.body(null, 204);
  });
  api.post("/assistants/:assistant_id/versions", async (c) => {
    const owner = callerOf(c).userId;
    const id = c.req.param("assistant_id");
    const assistant = get(owner, id);
    const body = await parseBody(c, VersionsSchema);
    if (assistant.name === GRAPH_ID) return c.json([{ ...assistant }]);
    const definition = agents.get(assistant.name, owner)!;
    const versions = agents
      .record(assistant.name, owner)
      .versions.filter((version) => !body.metadata || contains(version.metadata, body.metadata))
      .sort((a, b) => b.version - a.version)
      .slice(body.offset, body.offset + body.limit)
      .map((version) => {
        const versionContext = agentContext({ name: definition.name, settings: version.settings, soul: version.soul });
        return {
          assistant_id: assistant.assistant_id,
          graph_id: GRAPH_ID,
          name: assistant.name,
          description: version.settings.description || null,
          config: { configurable: { ...versionContext } },
          context: versionContext,
          metadata: version.metadata,
          version: version.version,
          created_at: version.created_at,
        };
      });
    return c.json(versions);
  });
  api.post("/assistants/:assistant_id/latest", async (c) => {
    const owner = callerOf(c).userId;
    const name = agentOf(context, owner, c.req.param("assistant_id"));
    const body = await parseBody(c, LatestSchema);
    agents.setLatest(name, body.version, owner);
    return c.json(current(owner, name));
  });

  api.post("/assistants/search", async (c) => {
    const body = await parseBody(c, SearchSchema);
    const all = filter(callerOf(c).userId, body);
    if (body.sort_by) {
      const key = body.sort_by;
      const direction = body.sort_order === "asc" ? 1 : -1;
      all.sort((a, b) => (a[key] < b[key] ? -direction : a[key] > b[key] ? direction : 0));
    }
    const page = all.slice(body.offset, body.offset + body.limit);
    c.header("x-pagination-total", String(all.length));
    if (body.offset + page.length < all.length) c.header("x-pagination-next", String(body.offset + page.length));
    return c.json(page.map((assistant) => select(assistant, body.select)));
  });
  api.post("/assistants/count", async (c) =>
    c.json(
      filter(
        callerOf(c).userId,
        await parseBody(
          c,
          SearchSchema.pick({ graph_id: true, name: true, metadata: true }).extend({
            limit: z.number().optional(),
            offset: z.number().optional(),
          }),
        ),
      ).length,
    ),
  );
  api.get("/assistants/:assistant_id", (c) => c.json(get(callerOf(c).userId, c.req.param("assistant_id"))));
  api.get("/assistants/:assistant_id/graph", async (c) => {
    get(callerOf(c).userId, c.req.param("assistant_id"));
    const graph = await context.harness.agent().graph.getGraphAsync();
    return c.json({
      nodes: Object.values(graph.nodes).map((node) => ({
        id: node.id,
        name: node.name,
        data: null,
        metadata: node.metadata ?? null,
      })),
      edges: graph.edges.map((edge) => ({
        source: edge.source,
        target: edge.target,
        conditional: edge.conditional ?? false,
        data: edge.data ?? null,
      })),
    });
  });
  api.get("/assistants/:assistant_id/schemas", (c) => {
    const assistant = get(callerOf(c).userId, c.req.param("assistant_id"));
    return c.json({
      graph_id: assistant.graph_id,
      input_schema: null,
      output_schema: null,
      state_schema: null,
      config_schema: null,
      context_schema: CONTEXT_SCHEMA,
    });
  });
  api.get("/assistants/:assistant_id/subgraphs", (c) => {
    get(callerOf(c).userId, c.req.param("assistant_id"));
    return c.json({});
  });
};
