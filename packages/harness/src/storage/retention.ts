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
 *   user's message applied, where a UI forks to regenerate) and its last, and the thread's first
 *   checkpoint (where editing the first message forks).
 * - `all`: keep everything (what LangGraph does on its own).
 * - `latest`: only the head.
 *
 * A kept checkpoint whose parent goes is re-pointed to its nearest kept ancestor in the same
 * transaction: clients draw branches from `parent_checkpoint` and fork from it (regenerate, edit), and
 * LangGraph, asked to fork from a checkpoint that is gone, starts from an empty state.
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
  /** Whether the prune's guard held (set only when a guard was given and the store checked it). */
  guard?: "held" | "lost";
}

/** A condition over `$1`…`$n` (its `params`) a prune checks in its own transaction: when false, it removes nothing. */
export interface PruneGuard {
  sql: string;
  params: unknown[];
}

/** Applies a retention policy to a thread's stored checkpoints. */
export interface CheckpointPruner {
  /** Removes what `policy` does not keep from one thread, atomically. Never removes the head. */
  pruneThread(threadId: string, policy: RetentionPolicy, guard?: PruneGuard): Promise<PruneReport>;
}

interface CheckpointRow {
  checkpoint_id: string;
  parent_checkpoint_id?: string | null;
  metadata: Buffer | string | null;
}

/** What a prune does to a thread: the checkpoints it keeps, and the new parent of each kept one whose parent goes. */
export interface PrunePlan {
  keep: Set<string>;
  /** Kept checkpoint id → its nearest kept ancestor (null: none is kept). */
  relink: Map<string, string | null>;
}

/** Checkpoints that begin something on top of their parent: a run's input, a fork (regenerate), a state update. */
const STARTS = new Set(["input", "fork", "update"]);

/** The `source` and `step` LangGraph records in a checkpoint's metadata (undefined when unreadable). */
function describe(metadata: CheckpointRow["metadata"]): { source?: string; step?: number } {
  if (metadata === null) return {};
  try {
    const parsed = JSON.parse(typeof metadata === "string" ? metadata : metadata.toString("utf8")) as {
      source?: unknown;
      step?: unknown;
    };
    return {
      source: typeof parsed.source === "string" ? parsed.source : undefined,
      step: typeof parsed.step === "number" ? parsed.step : undefined,
    };
  } catch {
    return {};
  }
}

/**
 * What `policy` does to a thread, from its root-namespace checkpoints in time order (ids are
 * time-ordered). Under `runs` a checkpoint stays when it is
 * - the head, or a root (the thread's first input: editing the first message forks from it);
 * - a run's first step: its parent is the run's input checkpoint (the user's message applied, where a
 *   UI forks to regenerate the answer);
 * - a leaf (the last step of a run, or of a branch a regenerate or edit left behind), or the point a
 *   run, fork or state update continued from (the last step of the run before);
 * - one end of a link that skips steps (LangGraph numbers each checkpoint one step after its parent), so
 *   an earlier prune kept it: what a prune keeps, the next one keeps too;
 * - one whose parent is not among `rows` at all (a link an older version left broken), or one older
 *   than `settledBefore` (an incremental prune passes the rows an earlier prune decided).
 * Every other checkpoint goes, and each kept one whose parent goes is re-pointed to its nearest kept
 * ancestor, so `parent_checkpoint` always names a checkpoint that exists: clients build their branch
 * tree from it and fork from it (agent-chat-ui regenerates from the parent of the first state that
 * shows the answer). `latest` keeps the head alone (its parent becomes null); `all` keeps everything.
 *
 * @example
 * // input(-1) → s0 → s1 → s2 | input(3) → s4 → s5: keeps input(-1), s0, s2, s4 and s5; s4 now points at s2.
 * const { keep, relink } = planPrune(rows, "runs");
 */
export function planPrune(rows: readonly CheckpointRow[], policy: RetentionPolicy, settledBefore = ""): PrunePlan {
  const relink = new Map<string, string | null>();
  if (policy === "all") return { keep: new Set(rows.map((row) => row.checkpoint_id)), relink };
  const keep = new Set<string>();
  const head = rows.at(-1)?.checkpoint_id;
  if (head !== undefined) keep.add(head);
  const nodes = new Map(
    rows.map((row) => [
      row.checkpoint_id,
      { parent: row.parent_checkpoint_id ?? null, children: [] as string[], ...describe(row.metadata) },
    ]),
  );
  for (const [id, node] of nodes) if (node.parent !== null) nodes.get(node.parent)?.children.push(id);
  if (policy === "runs") {
    /** Whether the link from `child` to `parent` skips steps an earlier prune removed (unknown steps: yes). */
    const skips = (child: { step?: number }, parent: { step?: number }) =>
      child.step === undefined || parent.step === undefined || child.step > parent.step + 1;
    for (const [id, node] of nodes) {
      const parent = node.parent === null ? undefined : nodes.get(node.parent);
      const children = node.children.map((child) => nodes.get(child)!);
      if (
        id < settledBefore ||
        node.parent === null ||
        parent === undefined ||
        parent.source === "input" ||
        skips(node, parent) ||
        children.length === 0 ||
        children.some((child) => STARTS.has(child.source ?? "") || skips(child, node))
      )
        keep.add(id);
    }
  }
  for (const id of keep) {
    if (id < settledBefore) continue;
    const own = nodes.get(id)!.parent;
    let parent = own;
    while (parent !== null && nodes.has(parent) && !keep.has(parent)) parent = nodes.get(parent)!.parent;
    if (parent !== own) relink.set(id, parent);
  }
  return { keep, relink };
}

/** The checkpoint ids `policy` keeps (see {@link planPrune}). */
export function keptCheckpointIds(rows: readonly CheckpointRow[], policy: RetentionPolicy): Set<string> {
  return planPrune(rows, policy).keep;
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
  // Once there, the checkpoint tables stay: after the first yes, pruneThread stops asking.
  let tablesSeen = false;
  const hasTables = () =>
    (tablesSeen ||= Boolean(
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'").get(),
    ));
  if (!db.readonly) {
    try {
      relinkOnce(db, hasTables());
    } catch {
      // Busy or unwritable right now: nothing was changed, and the next open tries again.
    }
  }
  let statements: ReturnType<typeof prepare> | undefined;
  const prepare = () => ({
    // The thread's checkpoints from `from` on, and the parents of those that are older (already decided).
    rows: db.prepare<{ thread: string; from: string }, CheckpointRow>(
      `SELECT checkpoint_id, parent_checkpoint_id, metadata FROM checkpoints
         WHERE thread_id = @thread AND checkpoint_ns = '' AND checkpoint_id >= @from
       UNION
       SELECT checkpoint_id, parent_checkpoint_id, metadata FROM checkpoints
         WHERE thread_id = @thread AND checkpoint_ns = '' AND checkpoint_id < @from AND checkpoint_id IN
           (SELECT parent_checkpoint_id FROM checkpoints WHERE thread_id = @thread AND checkpoint_ns = '' AND checkpoint_id >= @from)
       ORDER BY checkpoint_id`,
    ),
    deleteCheckpoint: db.prepare<[string, string]>(
      "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
    ),
    deleteWrites: db.prepare<[string, string]>(
      "DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
    ),
    relink: db.prepare<[string | null, string, string]>(
      "UPDATE checkpoints SET parent_checkpoint_id = ? WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
    ),
  });
  /**
   * Per thread, the head this pruner left last time under `runs`: everything before it was decided then,
   * so the next prune reads only from there on, plus the parents of what it reads (a long thread's prune
   * stays as cheap as its first). The rules give the same answer on that tail as on the whole thread: a
   * checkpoint's children are newer than it, and its parent is read with it.
   */
  const prunedUpTo = new Map<string, string>();
  const prune = db.transaction((threadId: string, policy: RetentionPolicy): PruneReport => {
    statements ??= prepare();
    const from = policy === "runs" ? (prunedUpTo.get(threadId) ?? "") : "";
    const rows = statements.rows.all({ thread: threadId, from });
    const { keep, relink } = planPrune(rows, policy, from);
    const drop = rows.map((row) => row.checkpoint_id).filter((id) => !keep.has(id));
    let checkpoints = 0;
    let writes = 0;
    for (const id of drop) {
      checkpoints += statements.deleteCheckpoint.run(threadId, id).changes;
      writes += statements.deleteWrites.run(threadId, id).changes;
    }
    for (const [id, parent] of relink) statements.relink.run(parent, threadId, id);
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

/** The name under which {@link relinkOnce} records that it ran. */
const RELINK_REPAIR = "checkpoint-parent-links";

/**
 * Versions before parent links were re-pointed deleted checkpoints and left the kept ones naming them as
 * parents: `/history` then showed broken branches and clients forked from checkpoints that no longer
 * exist. Once per database (recorded in `deerflow_repairs`), each root-namespace checkpoint whose parent
 * is missing gets, as its parent, the thread's newest checkpoint older than the missing one: its nearest
 * kept ancestor, since a thread pruned that way never branched successfully. One statement, one
 * transaction; a database without checkpoints yet only records it.
 */
function relinkOnce(db: Database.Database, hasCheckpoints: boolean): void {
  db.exec("CREATE TABLE IF NOT EXISTS deerflow_repairs (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
  if (db.prepare("SELECT 1 FROM deerflow_repairs WHERE name = ?").get(RELINK_REPAIR)) return;
  db.transaction(() => {
    if (hasCheckpoints) db.exec(RELINK_SQL);
    db.prepare("INSERT OR IGNORE INTO deerflow_repairs (name, applied_at) VALUES (?, ?)").run(
      RELINK_REPAIR,
      new Date().toISOString(),
    );
  }).immediate();
}

/**
 * Re-points every root-namespace checkpoint whose parent is gone to the thread's newest checkpoint older
 * than that parent (NULL when there is none). Postgres runs the same statement as migration 5.
 */
const RELINK_SQL = `UPDATE checkpoints SET parent_checkpoint_id = (
    SELECT MAX(p.checkpoint_id) FROM checkpoints p
    WHERE p.thread_id = checkpoints.thread_id AND p.checkpoint_ns = '' AND p.checkpoint_id < checkpoints.parent_checkpoint_id)
  WHERE checkpoint_ns = '' AND parent_checkpoint_id IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM checkpoints p
    WHERE p.thread_id = checkpoints.thread_id AND p.checkpoint_ns = '' AND p.checkpoint_id = checkpoints.parent_checkpoint_id)`;

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
