/**
 * The stored row of a cron and its record, shared by the SQLite and Postgres stores (which differ in
 * how JSON, booleans and times come back), and the filters both apply the same way.
 */
import type { CatchUp, CronQuery, CronRecord, DeliverTo } from "./types.js";

/** The crons table's columns, in the order the stores insert them. */
export const CRON_COLUMNS = [
  "cron_id",
  "assistant_id",
  "thread_id",
  "schedule",
  "timezone",
  "end_time",
  "payload",
  "metadata",
  "enabled",
  "on_run_completed",
  "catch_up",
  "owner",
  "next_run_at",
  "last_run_id",
  "last_run_at",
  "skipped",
  "last_skipped_at",
  "last_error",
  "created_at",
  "updated_at",
  "run_at",
  "deliver_to",
] as const;

/** A row as a driver returns it. */
export interface CronRow {
  cron_id: string;
  assistant_id: string;
  thread_id: string | null;
  schedule: string;
  timezone: string;
  end_time: string | null;
  payload: unknown;
  metadata: unknown;
  enabled: boolean | number;
  on_run_completed: string;
  catch_up: string;
  owner: string | null;
  next_run_at: string | Date | null;
  last_run_id: string | null;
  last_run_at: string | null;
  skipped: number | string;
  last_skipped_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  run_at: string | null;
  deliver_to: unknown;
}

const iso = (value: string | Date | null) => (value instanceof Date ? value.toISOString() : value);

/** The record of a row; `json` reads a JSON column (JSON.parse for SQLite text, identity for JSONB). */
export function cronFromRow(row: CronRow, json: (value: unknown) => unknown): CronRecord {
  return {
    ...row,
    payload: json(row.payload) as Record<string, unknown>,
    metadata: json(row.metadata) as Record<string, unknown>,
    enabled: Boolean(row.enabled),
    on_run_completed: row.on_run_completed === "keep" ? "keep" : "delete",
    catch_up: row.catch_up as CatchUp,
    next_run_at: iso(row.next_run_at),
    skipped: Number(row.skipped),
    deliver_to: row.deliver_to == null ? null : (json(row.deliver_to) as DeliverTo),
  };
}

/** The column a search sorts by. */
export function sortColumn(sortBy: CronQuery["sort_by"]): string {
  return sortBy === "next_run_date" ? "next_run_at" : sortBy;
}
