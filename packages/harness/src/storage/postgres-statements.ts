/**
 * Statements parsed once per connection.
 *
 * node-postgres sends a query with parameters as an unnamed statement: Postgres parses, analyses and
 * plans its text on every call. For the run bookkeeping (claim, lease, settle, event rows, checkpoint
 * reads) parsing a statement with CTEs took 150–600 µs of the backend's CPU and planning it at bind about
 * as much again, for a statement whose execution took 100–300 µs (`log_statement_stats` over one-turn
 * runs of `deerflow serve`).
 *
 * Here a parameterised text the process sends a second time gets a name, so each pool connection parses
 * it once and keeps it (node-postgres remembers which names a connection has parsed), and Postgres can
 * switch it to a generic plan after its first five calls on a connection instead of planning every call.
 * A text seen once is left unnamed: texts that embed per-call values never fill a connection with
 * statements used once. The names are capped (`MAX_NAMED`); past the cap, new texts go unnamed as before.
 *
 * Plans stay Postgres's choice (`plan_cache_mode = auto`): forcing generic plans saved about as much
 * again in the run bookkeeping, but a generic plan does not know a search's `LIMIT`, and a thread search
 * over a large table could lose its ordered index scan.
 */
import type pg from "pg";

/** How many distinct texts may be named; past it, new texts are sent unnamed. */
export const MAX_NAMED = 500;
/** How many texts seen once are remembered while waiting for a second use (then forgotten, all at once). */
const MAX_SEEN = 5_000;

/** Names for the texts one process sends more than once: the same text has the same name on every connection. */
export class StatementNames {
  readonly #seen = new Set<string>();
  readonly #names = new Map<string, string>();

  /** The name to send `text` under, or undefined to send it unnamed (first use, or the cap is reached). */
  nameFor(text: string): string | undefined {
    const known = this.#names.get(text);
    if (known !== undefined || this.#names.size >= MAX_NAMED) return known;
    if (!this.#seen.has(text)) {
      if (this.#seen.size >= MAX_SEEN) this.#seen.clear();
      this.#seen.add(text);
      return undefined;
    }
    this.#seen.delete(text);
    const name = `deerflow_q${this.#names.size}`;
    this.#names.set(text, name);
    return name;
  }

  /** How many texts have names. */
  get size(): number {
    return this.#names.size;
  }
}

type QueryFunction = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * Makes `client` send its repeated parameterised texts as named statements. Call it once per connection,
 * from the pool's `connect` event; `names` is shared by the pool.
 */
export function prepareRepeatedStatements(client: pg.PoolClient | pg.Client, names: StatementNames): void {
  const target = client as unknown as { query: QueryFunction };
  // The prototype's query is looked up on each call, so code that wraps it later (tracing, tests
  // counting statements) still sees every query.
  const prototype = Object.getPrototypeOf(client) as { query: QueryFunction };
  const query: QueryFunction = (config, values, callback) => prototype.query.call(client, config, values, callback);
  target.query = (config, values, callback) => {
    if (typeof config === "string" && Array.isArray(values) && values.length > 0) {
      const name = names.nameFor(config);
      if (name !== undefined) return query({ name, text: config }, values, callback);
    }
    return query(config, values, callback);
  };
  // Sent before anything else on the connection (node-postgres queues a client's queries in order). A
  // server without the setting (before Postgres 12) refuses it; the connection then plans as it did.
}
