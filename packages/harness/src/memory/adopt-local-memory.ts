/**
 * The upgrade path from one user to many: a home that served one person keeps its memory ownerless
 * (`{root}/memory.json`, `{root}/agents/{name}/memory.json`); once that home gets accounts, that memory
 * is the first admin's. This moves it, and the conversations still waiting to be learned from, under
 * `{root}/users/{id}`, so it reaches that user's prompts and nobody else's.
 *
 * Safe to run at every start: nothing to move is nothing done, and a file the user already has is never
 * overwritten (the ownerless one stays where it is and is reported).
 */
import fs from "node:fs";
import path from "node:path";
import type { AppConfig } from "../config/schema.js";
import { ConfigError } from "../errors.js";
import { withFileLock } from "./file-lock.js";
import { memoryJournalPath, moveOrphanedEntries } from "./memory-journal.js";
import { memoryPath, memoryRoot, memoryUserRoot, normaliseAgentName, normaliseUserId } from "./memory-path.js";

/** What `adoptLocalMemory` did. Paths are the ownerless files. */
export interface AdoptedMemory {
  /** Files moved to the same place under `{root}/users/{userId}`. */
  moved: string[];
  /** Files left where they are because the user already has that agent's memory. */
  kept: string[];
  /** Journaled conversations handed to the user, learned from by the next memory service that resumes. */
  pending: number;
}

/**
 * Gives the local (ownerless) memory of the home to `userId`: the default agent's and every named agent's
 * `memory.json`, and the journaled conversations no live process holds. Idempotent.
 *
 * Run it before `createHarness` (a server's start), or through `harness.adoptLocalMemory(userId)`, which
 * also closes the harness's local memory services and drops its cached graphs. Another process that has
 * the local memory open (a running `deerflow chat`) keeps writing to the local files.
 *
 * @example
 * const { moved, kept } = adoptLocalMemory(home, config, admin.id);
 * for (const file of kept) log.warn(`${file} was left in place: ${admin.id} already has that memory.`);
 */
export function adoptLocalMemory(
  home: string,
  config: AppConfig,
  userId: string,
  options: { onWarning?: (message: string) => void } = {},
): AdoptedMemory {
  const user = normaliseUserId(userId);
  if (user === undefined) {
    throw new ConfigError("adoptLocalMemory needs the id of the user who receives the local memory.");
  }
  const root = memoryRoot(home, config.memory.storage_path);
  const result: AdoptedMemory = { moved: [], kept: [], pending: 0 };
  for (const agentName of [undefined, ...localAgentNames(root)]) {
    const from = memoryPath(root, agentName);
    const to = memoryPath(root, agentName, user);
    if (!fs.existsSync(from)) continue;
    // Under both stores' locks: no update of either file is half-way while it moves.
    const outcome = withFileLock(`${from}.lock`, () =>
      withFileLock(`${to}.lock`, (): "moved" | "kept" | "gone" => {
        if (!fs.existsSync(from)) return "gone";
        if (fs.existsSync(to)) return "kept";
        fs.mkdirSync(path.dirname(to), { recursive: true });
        fs.renameSync(from, to);
        return "moved";
      }),
    );
    if (outcome !== "gone") result[outcome].push(from);
  }
  result.pending = moveOrphanedEntries(
    memoryJournalPath(root),
    memoryJournalPath(memoryUserRoot(root, user)),
    user,
    options,
  );
  return result;
}

/** Named agents with an ownerless memory file (directories that are not valid agent names are skipped). */
function localAgentNames(root: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(path.join(root, "agents"));
  } catch {
    return [];
  }
  return names.filter((name) => {
    try {
      return normaliseAgentName(name) === name && fs.existsSync(memoryPath(root, name));
    } catch {
      return false;
    }
  });
}
