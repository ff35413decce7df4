/**
 * The `server_threads` and `server_runs` rows as the SQLite and Postgres stores read them, mapped to
 * records in one place so the two stores cannot drift apart on a field. The drivers differ in one step
 * only: SQLite hands JSON columns back as text, Postgres as parsed JSONB; each store passes its `decode`.
 * A thread search's column list and order are written here too, in SQL both databases read alike (the
 * JSON text of its answer is written by runs/thread-json.ts).
 */
import type {
  MultitaskStrategy,
  RunKwargs,
  RunRecord,
  RunStatus,
  ThreadField,
  ThreadQuery,
  ThreadRecord,
} from "./types.js";

/** A `server_threads` row; `Json` is how the driver returns a JSON column. */
export interface StoredThreadRow<Json> {
  thread_id: string;
  created_at: string;
  updated_at: string;
  state_updated_at: string;
  metadata: Json;
  status: string;
  values: Json | null;
  interrupts: Json;
  error: string | null;
  owner?: string | null;
}

/** A `server_runs` row; `Json` is how the driver returns a JSON column. */
export interface StoredRunRow<Json> {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: string;
  metadata: Json;
  multitask_strategy: string;
  kwargs: Json;
}

/** The record of a thread row, its JSON columns read by `decode`. */
export function threadFromRow<Json>(row: StoredThreadRow<Json>, decode: (value: Json) => unknown): ThreadRecord {
  const values = row.values ?? null;
  return {
    thread_id: row.thread_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    state_updated_at: row.state_updated_at,
    metadata: decode(row.metadata) as Record<string, unknown>,
    status: row.status as ThreadRecord["status"],
    values: values === null ? null : (decode(values) as Record<string, unknown>),
    interrupts: decode(row.interrupts) as Record<string, unknown[]>,
    error: row.error ?? null,
    owner: row.owner ?? null,
  };
}

/** Every field a thread search can return, in the order of the table's columns. */
export const THREAD_FIELDS: readonly ThreadField[] = [
  "thread_id",
  "created_at",
  "updated_at",
  "state_updated_at",
  "metadata",
  "status",
  "values",
  "interrupts",
  "error",
];
/** The fields stored as JSON (text on SQLite, JSONB on Postgres). */
export const JSON_FIELDS: ReadonlySet<string> = new Set(["metadata", "values", "interrupts"]);
const SORTABLE: ReadonlySet<string> = new Set(["thread_id", "status", "created_at", "updated_at", "state_updated_at"]);

/**
 * The select list of a thread search: the asked-for fields (always with the thread id, in table order),
 * or every field but the owner.
 */
export function threadSearchColumns(fields: readonly ThreadField[] | undefined): string {
  const wanted = fields
    ? THREAD_FIELDS.filter((field) => field === "thread_id" || fields.includes(field))
    : THREAD_FIELDS;
  return wanted.map((field) => `"${field}"`).join(", ");
}

/**
 * The ORDER BY of a thread search: its sort column, then the thread id for ties, both in the one direction.
 * One owner's search leads with the owner column (one value, so the order is the same): Postgres then reads
 * the page in order from the `(owner, column, thread_id)` index also for the local user's `owner IS NULL`,
 * which unlike `owner = $1` does not tell its planner the column is fixed.
 */
export function threadSearchOrder(query: Pick<ThreadQuery, "sort_by" | "sort_order" | "owner">): string {
  const direction = query.sort_order === "asc" ? "ASC" : "DESC";
  const column = SORTABLE.has(query.sort_by) ? query.sort_by : "created_at";
  const keys = [
    ...(query.owner !== undefined ? ["owner"] : []),
    ...(column === "thread_id" ? [] : [column]),
    "thread_id",
  ];
  return `ORDER BY ${keys.map((key) => `${key} ${direction}`).join(", ")}`;
}

/** The fields a thread search read (see threadSearchColumns), its JSON columns read by `decode`. */
export function threadFieldsFromRow<Json>(
  row: Partial<StoredThreadRow<Json>>,
  decode: (value: Json) => unknown,
): Partial<ThreadRecord> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    fields[key] = value === null || value === undefined ? null : JSON_FIELDS.has(key) ? decode(value as Json) : value;
  }
  return fields as Partial<ThreadRecord>;
}

/** The record of a run row, its JSON columns read by `decode`. */
export function runFromRow<Json>(row: StoredRunRow<Json>, decode: (value: Json) => unknown): RunRecord {
  return {
    run_id: row.run_id,
    thread_id: row.thread_id,
    assistant_id: row.assistant_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    status: row.status as RunStatus,
    metadata: decode(row.metadata) as Record<string, unknown>,
    multitask_strategy: row.multitask_strategy as MultitaskStrategy,
    kwargs: decode(row.kwargs) as RunKwargs,
  };
}
