/**
 * A thread search's page as the JSON text `POST /threads/search` answers with, written straight from the
 * stored rows: the JSON columns (`metadata`, `values`, `interrupts`) are copied as the JSON text the store
 * holds instead of being parsed into objects and stringified again, which was most of a search's time.
 * The shape is the LangGraph `Thread` the route returned before, key for key and in the same order.
 */
import { JSON_FIELDS } from "./store-rows.js";
import type { ThreadField, ThreadTextRow } from "./types.js";

/**
 * The fields a `Thread` is written with: without `select`, every column read then `config` (always `{}`,
 * nothing is stored for it); with it, the selected ones that exist, in the order the client named them
 * (once each). The owner is never a column of a search, so it is never written.
 */
function writtenFields(columns: readonly ThreadField[], select: readonly string[] | null | undefined): string[] {
  const known = [...columns, "config"];
  if (!select?.length) return known;
  return [...new Set(select)].filter((field) => known.includes(field));
}

/**
 * The JSON array of `rows` (read as `columns`) as the API's `Thread` objects, `select`ed fields only when
 * given. The stored JSON text must be JSON, which it is: the stores write it with `JSON.stringify` (or
 * Postgres renders its JSONB).
 *
 * @example
 * threadsJson(["thread_id", "metadata", "values"], [["t1", '{"a":1}', null]], ["metadata", "thread_id"]);
 * // '[{"metadata":{"a":1},"thread_id":"t1"}]'
 */
export function threadsJson(
  columns: readonly ThreadField[],
  rows: readonly ThreadTextRow[],
  select?: readonly string[] | null,
): string {
  const plan = writtenFields(columns, select).map((field, index) => ({
    prefix: `${index === 0 ? "{" : ","}${JSON.stringify(field)}:`,
    column: columns.indexOf(field as ThreadField),
    // JSON fields are copied as stored; the others are plain strings, written quoted.
    json: JSON_FIELDS.has(field),
  }));
  let out = "[";
  for (let row = 0; row < rows.length; row += 1) {
    const cells = rows[row]!;
    if (row > 0) out += ",";
    for (const { prefix, column, json } of plan) {
      const cell = column < 0 ? null : cells[column];
      out += prefix;
      // `config` is the one field with no column: an empty object.
      out += column < 0 ? "{}" : cell == null ? "null" : json ? cell : JSON.stringify(cell);
    }
    out += plan.length > 0 ? "}" : "{}";
  }
  return `${out}]`;
}
