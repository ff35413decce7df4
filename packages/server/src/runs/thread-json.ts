/**
 * A thread search's answer written by the database: each row of the page comes back as the JSON text of
 * the LangGraph `Thread` that `POST /threads/search` answers with, put together in SQL from the stored
 * columns. The JSON columns (`metadata`, `values`, `interrupts`) are copied as the text the database holds
 * instead of being parsed into objects and written again, and one text per thread crosses into JavaScript
 * instead of nine cells: between them, most of what a search of 50 threads cost. The shape is the one
 * `GET /threads/{id}` writes, key for key and in the same order. (On SQLite an unselected search reads the
 * same text from the row's generated columns, migration `threads-json-1`, written when the row changes.)
 */
import { JSON_FIELDS, THREAD_FIELDS } from "./store-rows.js";

/** The SQL the expression is written in. */
export type SqlDialect = "sqlite" | "postgres";

/** Every field a `Thread` can be written with: the stored ones, then `config` (always `{}`, not stored). */
const WRITTEN_FIELDS: readonly string[] = [...THREAD_FIELDS, "config"];

/**
 * The fields each `Thread` is written with: without `select` (or with an empty one) all of them; with it,
 * the selected ones that exist, in the order the client named them, once each. The owner is not one.
 */
export function threadJsonFields(select?: readonly string[] | null): string[] {
  if (!select?.length) return [...WRITTEN_FIELDS];
  return [...new Set(select)].filter((field) => WRITTEN_FIELDS.includes(field));
}

/** The SQL of one field's JSON value: strings quoted by the database's own JSON quoting, JSON columns as their text. */
function valueSql(field: string, dialect: SqlDialect): string {
  if (field === "config") return "'{}'";
  const column = `"${field}"`;
  if (JSON_FIELDS.has(field))
    return dialect === "sqlite" ? `coalesce(${column}, 'null')` : `coalesce(${column}::text, 'null')`;
  return dialect === "sqlite" ? `json_quote(${column})` : `coalesce(to_json(${column})::text, 'null')`;
}

/**
 * The SQL expression whose value is a thread row's `Thread` as JSON text, with `fields` (threadJsonFields;
 * only known field names reach the SQL). The stored JSON must be JSON: the stores write it with
 * `JSON.stringify` (Postgres keeps JSONB, always valid; the SQLite store checks its text with `json_valid`).
 *
 * @example
 * threadJsonSql(["thread_id", "metadata"], "sqlite");
 * // `'{"thread_id":' || json_quote("thread_id") || ',"metadata":' || coalesce("metadata", 'null') || '}'`
 */
export function threadJsonSql(fields: readonly string[], dialect: SqlDialect): string {
  const known = fields.filter((field) => WRITTEN_FIELDS.includes(field));
  if (known.length === 0) return "'{}'";
  const parts = known.map((field, index) => `'${index === 0 ? "{" : ","}"${field}":' || ${valueSql(field, dialect)}`);
  return `${parts.join(" || ")} || '}'`;
}
