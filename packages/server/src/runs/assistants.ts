/**
 * The assistants the server offers a caller: `lead_agent` (DeerFlow's graph id, which every client sends
 * as `assistant_id`) and one per custom agent of theirs (harness `agents`: `{home}/agents/{name}/` for the
 * local user, `{home}/users/{id}/agents/{name}/` for a user), all of the same graph with `agent_name`
 * set. An assistant id may be given as the graph id, the assistant's name or its UUID (uuidv5 of the
 * name for the local user, as langgraph-api derives ids; of owner and name for a user; or the id a
 * client chose when it created the assistant).
 */
import { createHash } from "node:crypto";
import type { AgentDefinition, AgentRecord, AgentStore } from "@deerflow/harness";

/** The LangGraph namespace langgraph-api derives assistant ids with. */
const NAMESPACE = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";
/** The one graph the server serves. */
export const GRAPH_ID = "lead_agent";

/** An assistant as the API returns it. */
export interface Assistant {
  assistant_id: string;
  graph_id: string;
  name: string;
  description: string | null;
  config: { configurable?: Record<string, unknown> };
  context: Record<string, unknown>;
  metadata: Record<string, unknown>;
  version: number;
  created_at: string;
  updated_at: string;
}

/** UUIDv5 of `name` in `namespace` (RFC 4122 §4.3). */
export function uuidv5(name: string, namespace = NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ""), "hex");
  const hash = createHash("sha1")
    .update(Buffer.concat([ns, Buffer.from(name, "utf8")]))
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The derived id of `owner`'s agent `name` (the local user's keep the ids they always had). */
export function agentAssistantId(name: string, owner: string | null): string {
  return uuidv5(owner === null ? name : `users/${owner}/agents/${name}`);
}

/** The run options and settings an agent's assistant carries in `context` (and `config.configurable`). */
export function agentContext(definition: Pick<AgentDefinition, "name" | "settings" | "soul">): Record<string, unknown> {
  const { name: _name, description: _description, ...settings } = definition.settings;
  const set = Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== null && value !== undefined));
  return { agent_name: definition.name, ...set, soul: definition.soul };
}

/** The assistant of a custom agent. */
export function agentAssistant(definition: AgentDefinition, record: AgentRecord): Assistant {
  const context = agentContext(definition);
  return {
    assistant_id: record.assistant_id ?? agentAssistantId(definition.name, definition.owner),
    graph_id: GRAPH_ID,
    name: definition.name,
    description: definition.settings.description || null,
    config: { configurable: { ...context } },
    context,
    metadata: record.metadata,
    version: record.version,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** The lead agent's assistant id (uuidv5 of the graph id, as langgraph-api derives it). */
export const LEAD_ASSISTANT_ID = uuidv5(GRAPH_ID);

/** The built-in lead agent. */
export function leadAssistant(startedAt: string): Assistant {
  return {
    assistant_id: LEAD_ASSISTANT_ID,
    graph_id: GRAPH_ID,
    name: GRAPH_ID,
    description: "DeerFlow's lead agent",
    config: {},
    context: {},
    metadata: { created_by: "system" },
    version: 1,
    created_at: startedAt,
    updated_at: startedAt,
  };
}

/** The assistants `owner` sees, lead first. */
export function listAssistants(agents: AgentStore, owner: string | null, startedAt: string): Assistant[] {
  const custom = agents
    .list(owner)
    .map((definition) => agentAssistant(definition, agents.record(definition.name, owner)));
  return [leadAssistant(startedAt), ...custom];
}

/** Finds an assistant by UUID, name or graph id. */
export function findAssistant(assistants: readonly Assistant[], id: string): Assistant | undefined {
  return assistants.find((assistant) => assistant.assistant_id === id || assistant.name === id);
}

/**
 * What a run needs of the assistant `id` names: its id and context. The lead agent (what nearly every run
 * names) is answered without listing the caller's custom agents from disk: it comes first in every list,
 * so `findAssistant` would return it whatever those are.
 */
export function findRunAssistant(
  id: string,
  list: () => readonly Assistant[],
): Pick<Assistant, "assistant_id" | "context"> | undefined {
  if (id === GRAPH_ID || id === LEAD_ASSISTANT_ID) return { assistant_id: LEAD_ASSISTANT_ID, context: {} };
  return findAssistant(list(), id);
}
