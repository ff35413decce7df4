/**
 * A process that opens the home learns from the conversations earlier processes journaled but never got
 * to (a CLI exits about two seconds after its answer; a server may be stopped mid-update). Only the
 * agents that have such conversations get their memory service opened, so a home with an empty journal
 * costs one `stat`.
 */
import type { AppConfig } from "../config/schema.js";
import { memoryJournalPath, orphanedJournalAgents } from "./memory-journal.js";
import { memoryRoot } from "./memory-path.js";
import type { MemoryService } from "./memory-service.js";

/**
 * Hands each agent's orphaned journal entries to its memory service, which learns from them in the
 * background. Never throws: a journal that cannot be read is reported and left for the next process.
 *
 * @example
 * resumePendingMemory(config, home, (agentName) => memoryFor(agentName), console.warn);
 */
export function resumePendingMemory(
  config: AppConfig,
  home: string,
  memoryFor: (agentName?: string) => MemoryService | null,
  onWarning: (message: string) => void,
): void {
  if (!config.memory.enabled) return;
  const journal = memoryJournalPath(memoryRoot(home, config.memory.storage_path));
  try {
    for (const agentName of orphanedJournalAgents(journal)) memoryFor(agentName)?.resume();
  } catch (error) {
    onWarning(
      `Memory: the conversations waiting in ${journal} could not be picked up (${(error as Error).message}); the next start tries again.`,
    );
  }
}
