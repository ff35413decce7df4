/**
 * Assistants: `lead_agent` plus one per custom agent, read-only (search, count, get, graph, schemas,
 * subgraphs). Creating or editing assistants is not supported; custom agents are directories.
 */
import { z } from "zod";
import type { RegisterRoutes } from "../context.js";
import { notFound } from "../http/errors.js";
import { parseBody } from "../http/validate.js";
import { type Assistant, findAssistant } from "../runs/assistants.js";
import { contains } from "../runs/sqlite-store.js";

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

/** Registers the assistant routes. */
export const registerAssistantRoutes: RegisterRoutes = (api, context) => {
  const filter = (body: Pick<z.infer<typeof SearchSchema>, "graph_id" | "name" | "metadata">) =>
    context
      .assistants()
      .filter(
        (assistant) =>
          (!body.graph_id || assistant.graph_id === body.graph_id) &&
          (!body.name || assistant.name.includes(body.name)) &&
          (!body.metadata || contains(assistant.metadata, body.metadata)),
      );
  const get = (id: string) => {
    const assistant = findAssistant(context.assistants(), id);
    if (!assistant) throw notFound(`Assistant "${id}"`);
    return assistant;
  };

  api.post("/assistants/search", async (c) => {
    const body = await parseBody(c, SearchSchema);
    const all = filter(body);
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
  api.get("/assistants/:assistant_id", (c) => c.json(get(c.req.param("assistant_id"))));
  api.get("/assistants/:assistant_id/graph", async (c) => {
    get(c.req.param("assistant_id"));
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
    const assistant = get(c.req.param("assistant_id"));
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
    get(c.req.param("assistant_id"));
    return c.json({});
  });
};
