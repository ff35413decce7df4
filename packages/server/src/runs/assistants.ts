/**
 * The assistants the server offers: `lead_agent` (DeerFlow's graph id, which every client sends as
 * `assistant_id`) and one per custom agent (a directory `{home}/agents/{name}/`, DeerFlow's layout, where
 * its memory lives), all of the same graph with `agent_name` set. An assistant id may be
 * given as the graph id, the assistant's name or its UUID (uuidv5 of the name, as langgraph-api does).
 */
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";

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

/** The assistants under `home`, lead first. */
export function listAssistants(home: string, startedAt: string): Assistant[] {
  const make = (name: string, description: string | null, agentName?: string): Assistant => ({
    assistant_id: uuidv5(name),
    graph_id: GRAPH_ID,
    name,
    description,
    config: agentName ? { configurable: { agent_name: agentName } } : {},
    context: agentName ? { agent_name: agentName } : {},
    metadata: { created_by: "system" },
    version: 1,
    created_at: startedAt,
    updated_at: startedAt,
  });
  let names: string[] = [];
  try {
    names = readdirSync(path.join(home, "agents"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && /^[A-Za-z0-9-]+$/.test(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch {
    // No custom agents yet.
  }
  const custom = names.map((name) => make(name, `Custom agent ${name}`, name));
  return [make(GRAPH_ID, "DeerFlow's lead agent"), ...custom];
}

/** Finds an assistant by UUID, name or graph id. */
export function findAssistant(assistants: readonly Assistant[], id: string): Assistant | undefined {
  return assistants.find((assistant) => assistant.assistant_id === id || assistant.name === id);
}
