/**
 * Where a memory file lives. The default agent keeps `{home}/memory.json`; a named agent keeps its own
 * `{home}/agents/{name}/memory.json`, so what one agent learns is never injected into another. The name
 * becomes a directory, so it is validated here: a name like `../x` must not escape `home`.
 */
import path from "node:path";
import { ConfigError } from "../errors.js";

const AGENT_NAME = /^[A-Za-z0-9-]+$/;

/**
 * Normalises an agent name for storage (lower-cased). Returns `undefined` for the default agent
 * (`undefined`, `null` or ""). Throws `ConfigError` when the name has characters other than letters,
 * digits and "-".
 */
export function normaliseAgentName(agentName?: string | null): string | undefined {
  if (agentName === undefined || agentName === null || agentName === "") return undefined;
  if (!AGENT_NAME.test(agentName)) {
    throw new ConfigError(
      `Agent name "${agentName}" is not valid for memory storage. Use only letters, digits and "-" (for example "research-bot").`,
    );
  }
  return agentName.toLowerCase();
}

/**
 * Path of the memory file for an agent.
 *
 * @example
 * memoryPath("/home/me/.deerflow");               // "/home/me/.deerflow/memory.json"
 * memoryPath("/home/me/.deerflow", "Researcher"); // "/home/me/.deerflow/agents/researcher/memory.json"
 */
export function memoryPath(home: string, agentName?: string | null): string {
  const name = normaliseAgentName(agentName);
  return name === undefined ? path.join(home, "memory.json") : path.join(home, "agents", name, "memory.json");
}

/**
 * The directory memory files live in: `memory.storage_path` (absolute, or relative to `home`), else `home`.
 *
 * @example
 * memoryRoot("/home/me/.deerflow", "mem"); // "/home/me/.deerflow/mem"
 */
export function memoryRoot(home: string, storagePath?: string | null): string {
  return storagePath ? path.resolve(home, storagePath) : home;
}
