/**
 * The person's custom agents through DeerFlow's `/api/agents` routes (the same bodies its frontend
 * sends): list, create, update, delete. The server keeps each person's agents to themselves.
 */
import { apiFetch } from "../api";

/** A custom agent as the server describes it. */
export interface Agent {
  name: string;
  description: string;
  model: string | null;
  tool_groups: string[] | null;
  skills: string[] | null;
  soul: string;
}

/** What the editor sends: every field, `null` meaning "no restriction" / "the default model". */
export type AgentDraft = Omit<Agent, "name">;

/** The tool groups an agent may be limited to. */
export const TOOL_GROUPS = ["file:read", "file:write", "bash", "web"] as const;

const json = (body: unknown, method: string): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** The person's agents. */
export async function listAgents(apiKey: string | undefined): Promise<Agent[]> {
  const body = (await (await apiFetch("/agents", apiKey)).json()) as { agents: Agent[] };
  return body.agents;
}

/** Creates an agent; the error's message carries the server's reason (a taken or invalid name). */
export async function createAgent(apiKey: string | undefined, name: string, draft: AgentDraft): Promise<Agent> {
  return (await (await apiFetch("/agents", apiKey, json({ name, ...draft }, "POST"))).json()) as Agent;
}

/** Saves an agent's fields. */
export async function updateAgent(apiKey: string | undefined, name: string, draft: AgentDraft): Promise<Agent> {
  return (await (await apiFetch(`/agents/${encodeURIComponent(name)}`, apiKey, json(draft, "PUT"))).json()) as Agent;
}

/** Deletes an agent with its memory. */
export async function deleteAgent(apiKey: string | undefined, name: string): Promise<void> {
  await apiFetch(`/agents/${encodeURIComponent(name)}`, apiKey, { method: "DELETE" });
}
