/**
 * Where a memory file lives. The default agent keeps `{root}/memory.json`; a named agent keeps its own
 * `{root}/agents/{name}/memory.json`, so what one agent learns is never injected into another. A user of
 * a multi-user server has the same layout under `{root}/users/{userId}`, so what one user tells the
 * agent never reaches another user's prompt; no user id is the local (ownerless) user of the CLI and of
 * a single-user server, whose files stay where they always were. Names and ids become directories, so
 * they are validated here: `../x` must not escape the root.
 */
import path from "node:path";
import { ConfigError } from "../errors.js";

const AGENT_NAME = /^[A-Za-z0-9-]+$/;
const USER_ID = /^[A-Za-z0-9_-]{1,64}$/;

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
 * Checks a user id for storage. Returns `undefined` for the local user (`undefined` or `null`). Ids are
 * kept as given (not lower-cased): two users must never share a directory. Throws `ConfigError` for
 * anything but 1 to 64 letters, digits, "-" and "_" (the empty string too: an owner that got lost on
 * the way must not become the local user).
 */
export function normaliseUserId(userId?: string | null): string | undefined {
  if (userId === undefined || userId === null) return undefined;
  if (!USER_ID.test(userId)) {
    throw new ConfigError(
      `User id "${userId}" is not valid for memory storage. Use 1 to 64 letters, digits, "-" or "_" (for example "u_7f3a"), or no user id for the local user.`,
    );
  }
  return userId;
}

/**
 * The directory a user's memory lives in: `root` itself for the local user, else `{root}/users/{userId}`.
 *
 * @example
 * memoryUserRoot("/home/me/.deerflow");         // "/home/me/.deerflow"
 * memoryUserRoot("/home/me/.deerflow", "ann");  // "/home/me/.deerflow/users/ann"
 */
export function memoryUserRoot(root: string, userId?: string | null): string {
  const id = normaliseUserId(userId);
  return id === undefined ? root : path.join(root, "users", id);
}

/**
 * Path of the memory file for an agent (and a user; none: the local user).
 *
 * @example
 * memoryPath("/home/me/.deerflow");                      // "/home/me/.deerflow/memory.json"
 * memoryPath("/home/me/.deerflow", "Researcher");        // "/home/me/.deerflow/agents/researcher/memory.json"
 * memoryPath("/home/me/.deerflow", "Researcher", "ann"); // "/home/me/.deerflow/users/ann/agents/researcher/memory.json"
 */
export function memoryPath(root: string, agentName?: string | null, userId?: string | null): string {
  const name = normaliseAgentName(agentName);
  const base = memoryUserRoot(root, userId);
  return name === undefined ? path.join(base, "memory.json") : path.join(base, "agents", name, "memory.json");
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
