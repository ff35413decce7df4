/**
 * Several statements in one round trip: pg's simple query protocol takes a string of statements separated
 * by semicolons and answers them all in one exchange, where the extended protocol (a statement with `$n`
 * parameters) takes one statement per exchange. Values then go into the text as literals, escaped here;
 * the transaction statements (`BEGIN`, `COMMIT`) ride in the same string, so a transaction of five
 * statements costs two round trips (what is read before a decision made in code, then the writes and the
 * commit). A failed statement skips the rest of the string; the caller rolls back as after any error.
 */
import pg from "pg";

/** A value as an SQL literal: NULL, a number, a boolean, an escaped string, or a text array. */
export function sqlLiteral(value: string | number | boolean | null | undefined | readonly (string | null)[]): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`${value} cannot be written as an SQL number.`);
    return String(value);
  }
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "string") return pg.escapeLiteral(value);
  return `ARRAY[${value.map((item) => (item === null ? "NULL" : pg.escapeLiteral(item))).join(", ")}]::text[]`;
}

/**
 * A statement written with `$1`…`$n` placeholders, with the values put in as literals, in one pass (a
 * value's own text is never read for placeholders).
 */
export function inlineParams(sql: string, values: readonly Parameters<typeof sqlLiteral>[0][]): string {
  return sql.replace(/\$(\d+)/g, (whole, n: string) => {
    const index = Number(n) - 1;
    if (index < 0 || index >= values.length) throw new Error(`${whole} has no value (${values.length} given).`);
    return sqlLiteral(values[index]);
  });
}

/** Sends `statements` in one round trip; returns each statement's result, in order. */
export async function queryBatch(client: pg.ClientBase, statements: readonly string[]): Promise<pg.QueryResult[]> {
  const result = (await client.query(statements.join(";\n"))) as unknown as pg.QueryResult | pg.QueryResult[];
  return Array.isArray(result) ? result : [result];
}
