/**
 * LangGraph's SQLite checkpointer with its write statements compiled once. `SqliteSaver` prepares its
 * INSERT again on every `put` and `putWrites` (a graph step writes both), and SQLite's compile of a
 * statement cost more than the write itself; here each is prepared on first use and reused, and the
 * writes of one task still go in one transaction. What is written, and when, is unchanged.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  type Checkpoint,
  type CheckpointMetadata,
  copyCheckpoint,
  type PendingWrite,
  WRITES_IDX_MAP,
} from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type Database from "better-sqlite3";

type Row = unknown[];

/** The checkpointer `openCheckpointStore` hands out. */
export class PreparedSqliteSaver extends SqliteSaver {
  #statements?: {
    checkpoint: Database.Statement<Row>;
    /** A task's writes when every channel is a special one (they replace), and otherwise (they are kept). */
    replaceWrites: Database.Transaction<(rows: Row[]) => void>;
    keepWrites: Database.Transaction<(rows: Row[]) => void>;
  };

  /** The statements, prepared once the tables exist (`setup()`). */
  #prepared() {
    this.setup();
    if (this.#statements) return this.#statements;
    const writes = (conflict: "REPLACE" | "IGNORE") => {
      const insert = this.db.prepare<Row>(
        `INSERT OR ${conflict} INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      return this.db.transaction((rows: Row[]) => {
        for (const row of rows) insert.run(...row);
      });
    };
    this.#statements = {
      checkpoint: this.db.prepare<Row>(
        "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ),
      replaceWrites: writes("REPLACE"),
      keepWrites: writes("IGNORE"),
    };
    return this.#statements;
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
  ): Promise<RunnableConfig> {
    const statements = this.#prepared();
    if (!config.configurable) throw new Error("Empty configuration supplied.");
    const threadId = config.configurable.thread_id as string | undefined;
    const ns = (config.configurable.checkpoint_ns as string | undefined) ?? "";
    const parentId = config.configurable.checkpoint_id as string | undefined;
    if (!threadId) throw new Error(`Missing "thread_id" field in passed "config.configurable".`);
    const [[type, data], [metadataType, metadataData]] = await Promise.all([
      this.serde.dumpsTyped(copyCheckpoint(checkpoint)),
      this.serde.dumpsTyped(metadata),
    ]);
    if (type !== metadataType) throw new Error("Failed to serialized checkpoint and metadata to the same type.");
    statements.checkpoint.run(threadId, ns, checkpoint.id, parentId, type, data, metadataData);
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    const statements = this.#prepared();
    if (!config.configurable) throw new Error("Empty configuration supplied.");
    if (!config.configurable.thread_id) throw new Error("Missing thread_id field in config.configurable.");
    if (!config.configurable.checkpoint_id) throw new Error("Missing checkpoint_id field in config.configurable.");
    const { thread_id, checkpoint_ns, checkpoint_id } = config.configurable;
    const rows = await Promise.all(
      writes.map(async ([channel, value], idx): Promise<Row> => {
        const [type, data] = await this.serde.dumpsTyped(value);
        return [thread_id, checkpoint_ns, checkpoint_id, taskId, WRITES_IDX_MAP[channel] ?? idx, channel, type, data];
      }),
    );
    const allSpecial = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    (allSpecial ? statements.replaceWrites : statements.keepWrites)(rows);
  }
}
