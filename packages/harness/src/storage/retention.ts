/**
 * Checkpoint retention: which of a thread's checkpoints stay once a run is over.
 *
 * LangGraph writes a full checkpoint after every graph step, so a thread used to keep about a dozen
 * copies of its whole state per turn, and disk grew with the square of what was said. A finished run
 * rarely needs its intermediate steps: crash-resume needs the steps of the run that is still going,
 * time travel needs one point per run. The policy is applied after a run ends (never on the hot
 * path), one transaction per thread, and the head checkpoint with its pending writes is always kept.
 *
 * - `runs` (default): every checkpoint of a run while it runs; afterwards each run's first step (the
 *   user's message applied, where a UI forks to regenerate) and its last.
 * - `all`: keep everything (what LangGraph does on its own).
 * - `latest`: only the head.
 *
 * {@link CheckpointPruner} is the small interface a store implements; SQLite's is here, Postgres's in
 * `postgres-retention.ts`; code with its own store passes one as `HarnessOptions.pruner`.
 */
import type Database from "better-sqlite3";

/** The retention policies `checkpoints.retention` accepts. */
export const RETENTION_POLICIES = ["runs", "all", "latest"] as const;
export type RetentionPolicy = (typeof RETENTION_POLICIES)[number];

/** What one prune removed. */
export interface PruneReport {
  threads: number;
  checkpoints: number;
  writes: number;
  /** Channel values no kept checkpoint refers to (Postgres stores them apart from checkpoints). */
  blobs?: number;
  /** Bytes the deleted rows took (Postgres; SQLite reports what the file shrank by instead). */
  bytes?: number;
}

/** Applies a retention policy to a thread's stored checkpoints. */
export interface CheckpointPruner {
  /** Removes what `policy` does not keep from one thread, atomically. Never removes the head. */
  pruneThread(threadId: string, policy: RetentionPolicy): Promise<PruneReport>;
}

interface CheckpointRow {
  checkpoint_id: string;
  parent_checkpoint_id?: string | null;
  metadata: Buffer | string | null;
}

/** The run a checkpoint starts: LangGraph marks the first checkpoint of each invocation with an input. */
function startsRun(metadata: CheckpointRow["metadata"]): boolean {
  if (metadata === null) return false;
  try {
    const parsed = JSON.parse(typeof metadata === "string" ? metadata : metadata.toString("utf8")) as {
      source?: string;
    };
    return parsed.source === "input";
  } catch {
    return false;
  }
}

/**
 * The checkpoint ids `policy` keeps, from a thread's root-namespace checkpoints in time order: the
 * head always, and under `runs` each finished run's first and last step: the checkpoint right after a
 * run's input checkpoint (the user's message applied: where a UI forks to regenerate the answer), the
 * one right before the next run's input checkpoint, and any whose parent an earlier prune removed
 * (those were kept as a run's first or last before).
 */
export function keptCheckpointIds(rows: readonly CheckpointRow[], policy: RetentionPolicy): Set<string> {
  if (policy === "all") return new Set(rows.map((row) => row.checkpoint_id));
  const keep = new Set<string>();
  if (rows.length > 0) keep.add(rows.at(-1)!.checkpoint_id);
  if (policy === "runs") {
    const ids = new Set(rows.map((row) => row.checkpoint_id));
    const inputs = new Set(rows.filter((row) => startsRun(row.metadata)).map((row) => row.checkpoint_id));
    rows.forEach((row, index) => {
      const parent = row.parent_checkpoint_id ?? null;
      if (parent !== null && (inputs.has(parent) || !ids.has(parent))) keep.add(row.checkpoint_id);
      if (index > 0 && inputs.has(row.checkpoint_id)) keep.add(rows[index - 1]!.checkpoint_id);
    });
  }
  return keep;
}

/** Threads whose last pruned head a pruner remembers (about 100 bytes each). */
const PRUNED_THREADS_REMEMBERED = 10_000;

/**
 * The SQLite pruner over `@langchain/langgraph-checkpoint-sqlite`'s tables (`checkpoints`, `writes`).
 * Subgraph namespaces are left as they are.
 *
 * @example
 * const pruner = createSqlitePruner(store.db);
 * await pruner.pruneThread("t1", "runs");
 */
export function createSqlitePruner(db: Database.Database): CheckpointPruner {
  const hasTables = () =>
    Boolean(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'").get());
  let statements: ReturnType<typeof prepare> | undefined;
  const prepare = () => ({
    rows: db.prepare<[string, string], CheckpointRow>(
      "SELECT checkpoint_id, parent_checkpoint_id, metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id >= ? ORDER BY checkpoint_id",
    ),
    deleteCheckpoint: db.prepare<[string, string]>(
      "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
    ),
    deleteWrites: db.prepare<[string, string]>(
      "DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
    ),
  });
  /**
   * Per thread, the head this pruner left last time under `runs`: everything before it was decided then,
   * so the next prune reads only from there on (a long thread's prune stays as cheap as its first). The
   * rules give the same answer on that tail (the old head starts it and stays); at worst, after another
   * process rewrote older history, a checkpoint whose parent is older than the tail is kept, never dropped.
   */
  const prunedUpTo = new Map<string, string>();
  const prune = db.transaction((threadId: string, policy: RetentionPolicy): PruneReport => {
    statements ??= prepare();
    const from = policy === "runs" ? (prunedUpTo.get(threadId) ?? "") : "";
    const rows = statements.rows.all(threadId, from);
    const keep = keptCheckpointIds(rows, policy);
    const drop = rows.map((row) => row.checkpoint_id).filter((id) => !keep.has(id));
    let checkpoints = 0;
    let writes = 0;
    for (const id of drop) {
      checkpoints += statements.deleteCheckpoint.run(threadId, id).changes;
      writes += statements.deleteWrites.run(threadId, id).changes;
    }
    const head = rows.at(-1)?.checkpoint_id;
    if (head !== undefined) {
      prunedUpTo.delete(threadId);
      prunedUpTo.set(threadId, head);
      // The oldest entry goes first: a thread not pruned for long is read whole once more, nothing else.
      if (prunedUpTo.size > PRUNED_THREADS_REMEMBERED) prunedUpTo.delete(prunedUpTo.keys().next().value!);
    }
    return { threads: drop.length > 0 ? 1 : 0, checkpoints, writes };
  });
  return {
    async pruneThread(threadId, policy) {
      if (policy === "all" || db.readonly || !hasTables()) return { threads: 0, checkpoints: 0, writes: 0 };
      return prune.immediate(threadId, policy);
    },
  };
}

/**
 * Returns free pages to the file system: a full VACUUM (also switching the file to incremental
 * auto-vacuum) when `full`, else an incremental vacuum, which is a no-op on files created before
 * auto-vacuum was on. Returns the bytes the file shrank by.
 */
export function reclaimSpace(db: Database.Database, full: boolean): number {
  const size = () =>
    (db.pragma("page_count", { simple: true }) as number) * (db.pragma("page_size", { simple: true }) as number);
  const before = size();
  if (full) {
    db.pragma("auto_vacuum = INCREMENTAL");
    db.exec("VACUUM");
  } else {
    db.pragma("incremental_vacuum");
  }
  db.pragma("wal_checkpoint(TRUNCATE)");
  return Math.max(0, before - size());
}
