/**
 * Read-only access to saved threads for `threads` and `history`: they open the thread database
 * without building an agent (no sandbox, no model, no memory) and without writing anything, so they
 * work on a read-only home and while a run is going on.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { type AppConfig, type CheckpointStore, createHistoryArchive, databaseFile, type HistoryArchive, loadConfig, openCheckpointStore, resolveHome } from "@deerflow/harness";

/** A thread's saved values as the last checkpoint holds them. */
export interface SavedThread {
  threadId: string;
  /** ISO time of the last checkpoint. */
  updatedAt: string | null;
  values: { title?: string | null; messages?: BaseMessage[] } & Record<string, unknown>;
}

/** Saved threads of one home. */
export interface ThreadReader {
  home: string;
  config: AppConfig;
  store: CheckpointStore;
  archive: HistoryArchive;
  read(threadId: string): Promise<SavedThread | null>;
  close(): void;
}

/** Opens the thread database the config selects, read-only unless `writable`. */
export function openThreadReader(configPath: string | undefined, options: { writable?: boolean } = {}): ThreadReader {
  const config = loadConfig({ path: configPath });
  const home = resolveHome();
  const store = openCheckpointStore(databaseFile(home, config.database), { readOnly: !options.writable });
  const archive = createHistoryArchive(store.db);
  return {
    home,
    config,
    store,
    archive,
    async read(threadId) {
      const tuple = await store.saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
      if (!tuple) return null;
      return { threadId, updatedAt: tuple.checkpoint.ts ?? null, values: tuple.checkpoint.channel_values as SavedThread["values"] };
    },
    close() {
      archive.close();
      store.close();
    },
  };
}
