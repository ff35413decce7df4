/**
 * Read-only access to saved threads for `threads` and `history`: they open the thread database
 * without building an agent (no sandbox, no model, no memory) and without writing anything, so they
 * work on a read-only home and while a run is going on.
 */
import type { BaseMessage } from "@langchain/core/messages";
import {
  type AppConfig,
  asyncArchive,
  type AsyncHistoryArchive,
  type CheckpointStore,
  createHistoryArchive,
  createPostgresHistoryArchive,
  databaseFile,
  loadConfig,
  openCheckpointStore,
  openPostgresDatabase,
  type PostgresDatabase,
  redact,
  resolveDatabaseUrl,
  resolveHome,
} from "@deerflow/harness";

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
  /** The SQLite file beside the home (checkpoints, history archive and leases, unless on Postgres). */
  store: CheckpointStore;
  /** The history archive: in Postgres on Postgres, else in the SQLite file. */
  archive: AsyncHistoryArchive;
  /** The Postgres database (database.backend postgres), or null on SQLite. */
  postgres: PostgresDatabase | null;
  /** Where the checkpoints are, for messages: the file, or the redacted Postgres URL. */
  where: string;
  /** Thread ids with checkpoints, most recently updated first. */
  listThreadIds(limit?: number): Promise<string[]>;
  /** Deletes every checkpoint of a thread; false when it had none. */
  deleteThread(threadId: string): Promise<boolean>;
  read(threadId: string): Promise<SavedThread | null>;
  close(): Promise<void>;
}

/** Opens the thread database the config selects (the SQLite file, or Postgres), read-only unless `writable`. */
export async function openThreadReader(
  configPath: string | undefined,
  options: { writable?: boolean } = {},
): Promise<ThreadReader> {
  const config = loadConfig({ path: configPath });
  const home = resolveHome();
  const postgres =
    config.database.backend === "postgres"
      ? await openPostgresDatabase(resolveDatabaseUrl(config.database), { migrate: false })
      : null;
  let store: CheckpointStore;
  try {
    // On Postgres nothing of a thread is in the file, so it is only read (a missing one is not created).
    store = openCheckpointStore(databaseFile(home, config.database), {
      readOnly: !options.writable || postgres !== null,
    });
  } catch (error) {
    await postgres?.close();
    throw error;
  }
  const archive = postgres ? createPostgresHistoryArchive(postgres.pool) : asyncArchive(createHistoryArchive(store.db));
  const saver = postgres?.saver ?? store.saver;
  return {
    home,
    config,
    store,
    archive,
    postgres,
    where: postgres ? redact(postgres.url) : store.file,
    async listThreadIds(limit) {
      if (!postgres) return store.listThreadIds(limit);
      const exists = await postgres.pool.query("SELECT to_regclass('checkpoints') AS name");
      if (!exists.rows[0]?.name) return [];
      // Checkpoint ids are time-ordered (UUIDv6), so the largest id is the latest update.
      const rows = await postgres.pool.query<{ thread_id: string }>(
        `SELECT thread_id, MAX(checkpoint_id) AS latest FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id ORDER BY latest DESC${limit ? " LIMIT $1" : ""}`,
        limit ? [limit] : [],
      );
      return rows.rows.map((row) => row.thread_id);
    },
    async deleteThread(threadId) {
      if (!postgres) return store.deleteThread(threadId);
      const found = await postgres.pool.query("SELECT 1 FROM checkpoints WHERE thread_id = $1 LIMIT 1", [threadId]);
      if ((found.rowCount ?? 0) === 0) return false;
      await postgres.saver.deleteThread(threadId);
      return true;
    },
    async read(threadId) {
      const tuple = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
      if (!tuple) return null;
      return {
        threadId,
        updatedAt: tuple.checkpoint.ts ?? null,
        values: tuple.checkpoint.channel_values as SavedThread["values"],
      };
    },
    async close() {
      await archive.close();
      store.close();
      await postgres?.close();
    },
  };
}
