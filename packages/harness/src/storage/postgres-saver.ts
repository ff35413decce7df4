/**
 * The Postgres checkpointer: `@langchain/langgraph-checkpoint-postgres`'s saver with long strings stored
 * once (`postgres-large-values.ts`), versions unique across branches, and writes batched: the large
 * values a checkpoint or a task's writes refer to go into its own statement.
 *
 * The stock saver sends one `INSERT` per channel blob and per pending write, inside `BEGIN`/`COMMIT`: a
 * one-turn run of `deerflow serve` spent about 75 of its 164 statements there. Here a checkpoint (its
 * row and all its blobs) is one statement, and a task's pending writes are one, each atomic on its
 * own, with no transaction around it. The rows are the stock saver's, column for column, so the stock
 * reads (`getTuple`, `list`) and databases written before read as they did.
 *
 * A write can carry a guard (`guarded`): a condition checked inside the write's own statement, so a
 * server worker that lost its run writes nothing, with no separate check before each write. The guard
 * can also hand the next write a rider: the caller's own small write (the server records where its run
 * started) made in that statement, atomically with it.
 */
import { JsonPlusSerializer, WRITES_IDX_MAP } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type pg from "pg";
import { createLargeValueSerde } from "./large-values.js";
import { type DeferredLargeValues, deferLargeValues, postgresLargeValues } from "./postgres-large-values.js";

/** A condition every guarded write must meet, checked in the write's statement. */
export interface WriteGuard {
  /** A boolean SQL expression over `$1`…`$n`, which are `params`. */
  sql: string;
  params: unknown[];
  /** The error to throw when the condition was false (nothing was written). */
  lost(): Error;
  /**
   * A write of the caller's to make in the next write's statement, before it and in the guard's place.
   * Asked before every write until one succeeded with it (then `written` is called).
   */
  rider?(): WriteRider | undefined;
}

/**
 * A data-modifying statement (`UPDATE … RETURNING`) over `$1`…`$n`: the guard's `params`, then its own.
 * It must return a row exactly when the guard holds (its WHERE clause carries the guard's condition), and
 * the write it rides with happens only then.
 */
export interface WriteRider {
  sql: string;
  params: unknown[];
  written(): void;
}

type PutArgs = Parameters<PostgresSaver["put"]>;
type PutWritesArgs = Parameters<PostgresSaver["putWrites"]>;

/** The checkpointer `createPostgresSaver` returns. */
export interface LeanPostgresSaver extends PostgresSaver {
  /** This saver with every `put` and `putWrites` made only while `guard` holds (reads are unchanged). */
  guarded(guard: WriteGuard): LeanPostgresSaver;
}

/**
 * The Postgres checkpointer with long strings stored once and batched writes. Metadata keeps the plain
 * serializer: it goes into a JSONB column, which cannot hold the reference's NUL character.
 *
 * @example
 * const saver = createPostgresSaver(pool);
 * await saver.guarded({ sql: "EXISTS (SELECT 1 FROM owners WHERE id = $1)", params: [id], lost: () => new Error("gone") })
 *   .put(config, checkpoint, metadata, versions);
 */
export function createPostgresSaver(pool: pg.Pool): LeanPostgresSaver {
  const plain = new JsonPlusSerializer();
  let lastVersion = 0;
  class Saver extends PostgresSaver implements LeanPostgresSaver {
    protected guard: WriteGuard | undefined;

    guarded(guard: WriteGuard): LeanPostgresSaver {
      const view = Object.create(this) as Saver;
      view.guard = guard;
      return view;
    }

    protected override async _dumpMetadata(metadata: Parameters<PostgresSaver["_dumpMetadata"]>[0]) {
      const [, data] = await plain.dumpsTyped(metadata);
      return JSON.parse(new TextDecoder().decode(data).replace(/\0/g, ""));
    }

    /**
     * Channel versions unique across a thread's branches. The inherited ones count 1, 2, 3 along each
     * branch, so two branches forked from one checkpoint (a regenerate, an edit) mint the same version
     * of a channel, and `checkpoint_blobs` (keyed by version, insert-or-ignore) keeps the first branch's
     * value for both: a regenerated answer read back as the one it replaced (langgraphjs#1812). A version
     * is one past the previous at least, and at least the time in microseconds: still a number, so the
     * versions of threads written before compare as they did.
     */
    override getNextVersion(current: number | undefined): number {
      lastVersion = Math.max(lastVersion + 1, (current ?? 0) + 1, Date.now() * 1000);
      return lastVersion;
    }

    /** The checkpoint row and its new blobs in one statement. */
    override async put(...[config, checkpoint, metadata, newVersions]: PutArgs) {
      if (config.configurable === undefined) throw new Error('Missing "configurable" field in "config" param');
      const { thread_id, checkpoint_ns = "", checkpoint_id } = config.configurable;
      const [[blobs, values], dumpedMetadata] = await Promise.all([
        deferLargeValues(() => this._dumpBlobs(thread_id, checkpoint_ns, checkpoint.channel_values, newVersions)),
        this._dumpMetadata(metadata),
      ]);
      // _dumpBlobs rows: thread, namespace, channel, version, type, blob (undefined for an empty channel).
      await this.guardedWrite(
        "put",
        [
          thread_id,
          checkpoint_ns,
          checkpoint.id,
          checkpoint_id ?? null,
          this._dumpCheckpoint(checkpoint),
          dumpedMetadata,
          blobs.map((row) => row[2]),
          blobs.map((row) => row[3]),
          blobs.map((row) => row[4]),
          blobs.map((row) => row[5] ?? null),
          ...largeValueParams(values),
        ],
        values,
      );
      return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
    }

    /** A task's pending writes in one statement. */
    override async putWrites(...[config, writes, taskId]: PutWritesArgs) {
      // Special channels (errors, interrupts, resumes) replace an earlier write at their index; others never do.
      const replace = writes.every(([channel]) => channel in WRITES_IDX_MAP);
      const { thread_id, checkpoint_ns, checkpoint_id } = config.configurable ?? {};
      const [dumped, values] = await deferLargeValues(() =>
        this._dumpWrites(thread_id, checkpoint_ns, checkpoint_id, taskId, writes),
      );
      // One row per index, as the stock saver's one statement per write leaves it: the last when replacing.
      const byIndex = new Map<number, (typeof dumped)[number]>();
      for (const row of dumped) if (replace || !byIndex.has(row[4])) byIndex.set(row[4], row);
      const rows = [...byIndex.values()];
      if (rows.length === 0) return;
      await this.guardedWrite(
        replace ? "replaceWrites" : "insertWrites",
        [
          thread_id,
          checkpoint_ns,
          checkpoint_id,
          taskId,
          rows.map((row) => row[4]),
          rows.map((row) => row[5]),
          rows.map((row) => row[6]),
          rows.map((row) => row[7]),
          ...largeValueParams(values),
        ],
        values,
      );
    }

    /**
     * Runs one of the write statements behind the guard (if any), with the large values its rows refer
     * to; throws the guard's error when it failed. The values count as stored once it committed.
     */
    private async guardedWrite(kind: keyof typeof WRITE_SQL, params: unknown[], values: DeferredLargeValues) {
      const guard = this.guard;
      const rider = guard?.rider?.();
      const leading = guard ? [...guard.params, ...(rider?.params ?? [])] : [];
      const result = await pool.query<{ held: boolean }>({
        ...preparedWrite(kind, guard, rider),
        values: [...leading, ...params],
      });
      if (guard && !result.rows[0]?.held) throw guard.lost();
      rider?.written();
      for (const stored of values.onStored) stored();
    }
  }
  return new Saver(pool, createLargeValueSerde(postgresLargeValues(pool)), { schema: SCHEMA });
}

/** The schema of the checkpoint tables (the stock saver's default), named in every statement as it names it. */
const SCHEMA = "public";

/** `$n` placeholders numbered from `first`. */
const placeholders = (first: number, count: number) => Array.from({ length: count }, (_, i) => `$${first + i}`);

/**
 * The statement's two last parameters: the hashes and bodies of the large values its rows refer to, in
 * hash order. Concurrent writes of one step often store the same values (every `Send` of a turn's tool
 * calls carries the same messages), and each insert or `used_at` update locks its row: taken in one order
 * by every statement, two can wait for each other but never deadlock.
 */
function largeValueParams(values: DeferredLargeValues): [string[], string[]] {
  const sorted = [...values.values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return [sorted.map(([hash]) => hash), sorted.map(([, body]) => body)];
}

/** Stores the large values (`hashes`, `bodies`: text arrays) when the guard holds; refreshes `used_at` of those stored before. */
function largeValuesCte(hashes: string, bodies: string): string {
  return `stored_values AS (
  INSERT INTO large_values (hash, body) SELECT v.hash, v.body
  FROM guard, unnest(${hashes}::text[], ${bodies}::text[]) AS v(hash, body)
  WHERE guard.held
  ORDER BY v.hash
  ON CONFLICT (hash) DO UPDATE SET used_at = now()
),`;
}

/** Inserts the checkpoint, its blobs and the large values they refer to when `guard` holds; returns whether it did. */
function putSql(guard: string, first: number): string {
  const [thread, ns, id, parent, checkpoint, metadata, channels, versions, types, blobs, hashes, bodies] = placeholders(
    first,
    12,
  );
  return `WITH guard AS (SELECT ${guard} AS held),
${largeValuesCte(hashes!, bodies!)}
blobs AS (
  INSERT INTO "${SCHEMA}".checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
  SELECT ${thread}::text, ${ns}::text, b.channel, b.version, b.type, b.blob
  FROM guard, unnest(${channels}::text[], ${versions}::text[], ${types}::text[], ${blobs}::bytea[]) AS b(channel, version, type, blob)
  WHERE guard.held
  ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
),
saved AS (
  INSERT INTO "${SCHEMA}".checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
  SELECT ${thread}::text, ${ns}::text, ${id}::text, ${parent}::text, ${checkpoint}::jsonb, ${metadata}::jsonb FROM guard
  WHERE guard.held
  ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata
)
SELECT held FROM guard`;
}

/** Inserts a task's pending writes (and their large values) when `guard` holds, leaving (or replacing) rows already at their index. */
function writesSql(onConflict: string) {
  return (guard: string, first: number): string => {
    const [thread, ns, checkpointId, task, indexes, channels, types, blobs, hashes, bodies] = placeholders(first, 10);
    return `WITH guard AS (SELECT ${guard} AS held),
${largeValuesCte(hashes!, bodies!)}
written AS (
  INSERT INTO "${SCHEMA}".checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
  SELECT ${thread}::text, ${ns}::text, ${checkpointId}::text, ${task}::text, w.idx, w.channel, w.type, w.blob
  FROM guard, unnest(${indexes}::int[], ${channels}::text[], ${types}::text[], ${blobs}::bytea[]) AS w(idx, channel, type, blob)
  WHERE guard.held
  ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) ${onConflict}
)
SELECT held FROM guard`;
  };
}

/** The write statements, by kind: each given the guard's SQL and the number of its first own parameter. */
const WRITE_SQL = {
  put: putSql,
  insertWrites: writesSql("DO NOTHING"),
  replaceWrites: writesSql("DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob"),
};

/** Prepared write statements by kind and guard: each is parsed and planned once per connection, not per write. */
const prepared = new Map<string, { name: string; text: string }>();

function preparedWrite(
  kind: keyof typeof WRITE_SQL,
  guard: WriteGuard | undefined,
  rider: WriteRider | undefined,
): { name: string; text: string } {
  const leading = (guard?.params.length ?? 0) + (rider?.params.length ?? 0);
  const key = `${kind}\0${leading}\0${guard?.sql ?? ""}\0${rider?.sql ?? ""}`;
  let statement = prepared.get(key);
  if (!statement) {
    // With a rider, the guard is whether the rider's statement found its row (checked on the row's latest version).
    const condition = rider ? "EXISTS (SELECT 1 FROM rider)" : guard ? `(${guard.sql})` : "true";
    const text = WRITE_SQL[kind](condition, leading + 1).replace(
      /^WITH /,
      rider ? `WITH rider AS (${rider.sql}),\n` : "WITH ",
    );
    prepared.set(key, (statement = { name: `deerflow_checkpoint_${prepared.size}`, text }));
  }
  return statement;
}
