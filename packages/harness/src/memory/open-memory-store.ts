/**
 * Opens the memory file that a config and agent name point at, without a model: what the CLI's
 * `deerflow memory` commands need. It uses the same storage rule as the memory service.
 */
import type { AppConfig } from "../config/schema.js";
import { memoryPath, memoryRoot } from "./memory-path.js";
import { createMemoryStore, type MemoryStore } from "./memory-store.js";

/** The memory store of `agentName` (or the default agent) under the config's storage root. */
export function openMemoryStore(
  config: AppConfig,
  options: { home: string; agentName?: string; onWarning?: (message: string) => void },
): MemoryStore {
  return createMemoryStore(memoryPath(memoryRoot(options.home, config.memory.storage_path), options.agentName), {
    onWarning: options.onWarning,
  });
}
