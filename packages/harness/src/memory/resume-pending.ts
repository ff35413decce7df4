/**
 * A process that opens the home learns from the conversations earlier processes journaled but never got
 * to (a CLI exits about two seconds after its answer; a server may be stopped mid-update). Only the
 * agents (and users) that have such conversations get their memory service opened, so a home with an
 * empty journal costs one `stat` per user.
 */
import fs from "node:fs";
import path from "node:path";
import type { AppConfig } from "../config/schema.js";
import { memoryJournalPath, orphanedJournalAgents } from "./memory-journal.js";
import { memoryRoot, memoryUserRoot, normaliseUserId } from "./memory-path.js";
import type { MemoryService } from "./memory-service.js";

/**
 * Hands each agent's orphaned journal entries, for the local user and every user under
 * `{root}/users/`, to that agent's and user's memory service, which learns from them in the background.
 * Never throws: a journal that cannot be read is reported and left for the next process.
 *
 * @example
 * resumePendingMemory(config, home, (agentName, userId) => memoryFor(agentName, userId), console.warn);
 */
export function resumePendingMemory(
  config: AppConfig,
  home: string,
  memoryFor: (agentName?: string, userId?: string) => MemoryService | null,
  onWarning: (message: string) => void,
): void {
  if (!config.memory.enabled) return;
  const root = memoryRoot(home, config.memory.storage_path);
  for (const userId of [undefined, ...userIds(root)]) {
    const journal = memoryJournalPath(memoryUserRoot(root, userId));
    try {
      for (const agentName of orphanedJournalAgents(journal)) memoryFor(agentName, userId)?.resume();
    } catch (error) {
      onWarning(
        `Memory: the conversations waiting in ${journal} could not be picked up (${(error as Error).message}); the next start tries again.`,
      );
    }
  }
}

/** The users with a directory under `{root}/users` (entries that are not valid user ids are ignored). */
function userIds(root: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(path.join(root, "users"));
  } catch {
    return [];
  }
  return names.filter((name) => {
    try {
      return normaliseUserId(name) === name;
    } catch {
      return false;
    }
  });
}
