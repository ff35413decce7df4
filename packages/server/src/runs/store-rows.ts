/**
 * The `server_threads` and `server_runs` rows as the SQLite and Postgres stores read them, mapped to
 * records in one place so the two stores cannot drift apart on a field. The drivers differ in one step
 * only: SQLite hands JSON columns back as text, Postgres as parsed JSONB; each store passes its `decode`.
 */
import type { MultitaskStrategy, RunKwargs, RunRecord, RunStatus, ThreadRecord } from "./types.js";

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
