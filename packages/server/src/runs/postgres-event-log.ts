/**
 * The Postgres EventLog: every process can stream, replay and join every run, whoever executes it.
 *
 * Rows of `run_events` hold batches: token-sized events (`messages`, `events`) wait up to
 * `coalesceMs` and go out together, so a long answer is a handful of rows, not one per token; every
 * other event flushes the batch at the end of its turn of the event loop (with the turn's other events),
 * keeping order, unless a row of the run is being written: then it waits for that write and goes out
 * with whatever else came meanwhile (group commit), so an append does not wait for its row and a step's
 * burst of events is one statement. A run's first row is written
 * before its append returns (a follower in another process must find the log); a failed write is thrown
 * by the run's next append or its `end`. `has` answers from memory for logs this process wrote. A row's id comes from a sequence and an event's
 * id is `row id × 10000 + its index in the row`, so ids grow across rows and a cursor names one event.
 * A row's INSERT sends its NOTIFY in the same statement: the run id, the row's id, the id of the run's
 * row before it and, when they fit in a notification, the row's events. A follower that has read
 * through that previous row takes the events from the notification (in the writer's own process, from
 * the writer directly); otherwise (events too big, a row it has not seen, a dropped log) it re-reads the
 * table from its cursor, and it polls every second if notifications are down. Rows are pruned
 * `retentionMs` after the run's `end`.
 *
 * A run keeps at most `maxEvents` events, as with the in-memory log: past it, the oldest rows go (whole
 * rows, so a little under the cap may stay; the newest row, which holds `end`, never goes) and
 * `run_event_trims` records the last id dropped, so a reader whose cursor is older gets a gap event
 * instead of a silent hole.
 */
import type pg from "pg";
import { CHANNELS, type Notifier } from "./postgres-notify.js";
import type { EventLog, GapEvent, StreamEvent } from "./types.js";

const PER_ROW = 10_000;
/** Events small and frequent enough to coalesce. */
const COALESCED = /^(messages|events)(\||$)/;

/** Events of a row carried in its notification at most (a notification holds under 8000 bytes). */
const NOTIFIED_BYTES = 7000;

/** A row as followers are told of it; `events` is missing when they did not fit in the notification. */
interface NotifiedRow {
  id: number;
  /** The run's row before it, null for its first. */
  prev: number | null;
  events?: [string, string][];
}

/**
 * Inserts a row and notifies followers in one statement; returns its id, the run's previous row id and
 * (`counted`) the number of events the run held before it.
 */
function insertSql(counted: boolean): string {
  return `WITH written AS (
  INSERT INTO run_events (run_id, events, is_end) VALUES ($1, $2::text::jsonb, $3) RETURNING id
), before AS (
  SELECT max(id) AS prev${counted ? ", COALESCE(sum(jsonb_array_length(events)), 0) AS n" : ""} FROM run_events WHERE run_id = $1
)
SELECT w.id, b.prev${counted ? ", b.n" : ""}, pg_notify($4, concat_ws(' ', $1, w.id, COALESCE(b.prev::text, '-'), CASE WHEN $5::boolean THEN $2 END))
FROM written w, before b`;
}
/** Prepared (named) statements: parsed and planned once per connection, not for every row. */
const INSERT_ROW = { name: "deerflow_event_row", text: insertSql(false) };
const INSERT_COUNTED_ROW = { name: "deerflow_event_row_counted", text: insertSql(true) };

/** The row a notification's payload (`run id`, then `row id`, `previous row id or -`, `events JSON`) describes. */
function notifiedRow(rest: string): NotifiedRow | undefined {
  const [id, prev] = rest.split(" ", 2);
  if (!id || !prev) return undefined;
  const json = rest.slice(id.length + prev.length + 2);
  try {
    return {
      id: Number(id),
      prev: prev === "-" ? null : Number(prev),
      events: json ? (JSON.parse(json) as [string, string][]) : undefined,
    };
  } catch {
    return undefined;
  }
}

/** A row of the log's read: a `run_events` row (null ids when none) and the run's trim mark. */
interface ReadRow {
  through: string | null;
  id: string | null;
  events: [string, string][] | null;
}

/** The events after `cursor` in rows read in id order, how many rows held them, the last row's id and the trim mark. */
function readRows(
  rows: readonly ReadRow[],
  cursor: number,
): { events: StreamEvent[]; rows: number; lastRow: number | null; trimmedThrough: number | null } {
  const events: StreamEvent[] = [];
  let count = 0;
  let lastRow: number | null = null;
  for (const row of rows) {
    if (row.id === null || !row.events) continue;
    count += 1;
    lastRow = Number(row.id);
    events.push(...eventsAfter(lastRow, row.events, cursor));
  }
  const through = rows[0]?.through;
  return {
    events,
    rows: count,
    lastRow,
    trimmedThrough: through === null || through === undefined ? null : Number(through),
  };
}

/** Where a run's log stands, from a row with its last row's and its `end` row's ids and event counts; null without a log. */
function startOfRow(
  row: { last_id: string | null; last_n: number; end_id: string | null; end_n: number } | undefined,
): { last: number; end: number | null } | null {
  if (!row || row.last_id === null) return null;
  return {
    last: Number(row.last_id) * PER_ROW + row.last_n - 1,
    end: row.end_id === null ? null : Number(row.end_id) * PER_ROW + row.end_n - 1,
  };
}
/** The events of row `id` whose ids come after `cursor`. */
function eventsAfter(id: number, events: readonly [string, string][], cursor: number): StreamEvent[] {
  const base = id * PER_ROW;
  const out: StreamEvent[] = [];
  events.forEach(([event, data], index) => {
    if (base + index > cursor) out.push({ id: String(base + index), event, data });
  });
  return out;
}

interface RunBuffer {
  events: [string, string][];
  timer?: NodeJS.Timeout;
  /** The chain of flushes of this run, so rows are written in order. */
  chain: Promise<void>;
  /** Rows being written now (flushed, not yet committed). */
  writing: number;
  /** A write waiting for the end of this turn of the event loop, for the turn's other events to join. */
  pending?: NodeJS.Immediate;
  /** What a write in the background failed with, for the run's next append or its end to throw. */
  failed?: unknown;
}

/** Options of the Postgres log. */
export interface PostgresEventLogOptions {
  retentionMs: number;
  /** Most events kept per run (default 20,000); the oldest rows go first. */
  maxEvents?: number;
  /** How long token events wait for company before they are written (default 25 ms). */
  coalesceMs?: number;
  /** How often a follower re-reads without a notification (default 1000 ms). */
  pollMs?: number;
}

/** Creates the log; `close()` flushes what is buffered and stops the pruning timer. */
export function createPostgresEventLog(
  pool: pg.Pool,
  notifier: Notifier,
  options: PostgresEventLogOptions,
): EventLog & { prune(): Promise<number>; settled(runId: string): Promise<void>; close(): Promise<void> } {
  const coalesceMs = options.coalesceMs ?? 25;
  const pollMs = options.pollMs ?? 1000;
  const maxEvents = options.maxEvents ?? 20_000;
  const buffers = new Map<string, RunBuffer>();
  /** Events this process believes a run holds (read once from the table, then counted as rows are written). */
  const counts = new Map<string, number>();
  const ended = new Set<string>();
  /** Runs whose log this process has written: `has` answers for them without a query. */
  const known = new Set<string>();
  const wakers = new Map<string, Set<(row?: NotifiedRow) => void>>();
  /** Tells the run's followers here of a new row (or, without one, to re-read). */
  const wake = (runId: string, row?: NotifiedRow) => {
    for (const fn of [...(wakers.get(runId) ?? [])]) fn(row);
  };
  const unlisten = notifier.on(CHANNELS.events, (payload) => {
    const space = payload.indexOf(" ");
    const runId = space < 0 ? payload : payload.slice(0, space);
    // A notification without a row: the run's log was dropped (by any process).
    if (space < 0) known.delete(runId);
    if (wakers.has(runId)) wake(runId, space < 0 ? undefined : notifiedRow(payload.slice(space + 1)));
  });

  const bufferOf = (runId: string): RunBuffer => {
    let buffer = buffers.get(runId);
    if (!buffer) buffers.set(runId, (buffer = { events: [], chain: Promise.resolve(), writing: 0 }));
    return buffer;
  };

  /** Writes what is buffered as one row (after the run's earlier rows). */
  const flush = (runId: string, isEnd = false): Promise<void> => {
    const buffer = bufferOf(runId);
    if (buffer.timer) clearTimeout(buffer.timer);
    buffer.timer = undefined;
    if (buffer.pending) clearImmediate(buffer.pending);
    buffer.pending = undefined;
    const batch = buffer.events.splice(0);
    if (batch.length === 0) return buffer.chain;
    buffer.writing += 1;
    buffer.chain = buffer.chain.then(async () => {
      let count = counts.get(runId);
      for (let start = 0; start < batch.length; start += PER_ROW) {
        const part = batch.slice(start, start + PER_ROW);
        const json = JSON.stringify(part);
        const result = await pool.query<{ id: string; prev: string | null; n?: string }>({
          ...(count === undefined ? INSERT_COUNTED_ROW : INSERT_ROW),
          values: [
            runId,
            json,
            isEnd && start + PER_ROW >= batch.length,
            CHANNELS.events,
            Buffer.byteLength(json) <= NOTIFIED_BYTES,
          ],
        });
        const row = result.rows[0]!;
        count = (count ?? Number(row.n)) + part.length;
        wake(runId, { id: Number(row.id), prev: row.prev === null ? null : Number(row.prev), events: part });
      }
      let total = count ?? 0;
      if (total > maxEvents) total -= await trim(runId);
      if (isEnd) counts.delete(runId);
      else counts.set(runId, total);
    });
    const written = buffer.chain.finally(() => {
      buffer.writing -= 1;
      // Events that came while this row was written go out together, as the next row.
      if (buffer.writing === 0 && buffer.events.length > 0 && !buffer.timer && buffers.get(runId) === buffer)
        void flush(runId).catch((error) => (buffer.failed ??= error));
    });
    // A failed write must not block the run's later writes; the caller that awaited it sees the error.
    buffer.chain = written.catch(() => {});
    return written;
  };

  /** Drops the run's oldest rows beyond `maxEvents` (never its newest) and records how far; returns the events dropped. */
  const trim = async (runId: string): Promise<number> => {
    const result = await pool.query<{ dropped: number }>(
      `WITH sized AS (
         SELECT id, sum(jsonb_array_length(events)) OVER (ORDER BY id DESC) AS from_here FROM run_events WHERE run_id = $1
       ), doomed AS (
         DELETE FROM run_events r USING sized s
         WHERE r.run_id = $1 AND r.id = s.id AND s.from_here > $2 AND r.id < (SELECT max(id) FROM sized)
         RETURNING r.id, jsonb_array_length(r.events) AS n
       ), marked AS (
         INSERT INTO run_event_trims (run_id, through)
         SELECT $1, id * $3 + n - 1 FROM doomed ORDER BY id DESC LIMIT 1
         ON CONFLICT (run_id) DO UPDATE SET through = GREATEST(run_event_trims.through, EXCLUDED.through)
       )
       SELECT COALESCE(sum(n), 0)::int AS dropped FROM doomed`,
      [runId, maxEvents, PER_ROW],
    );
    return result.rows[0]?.dropped ?? 0;
  };

  /**
   * Events after the cursor, the number of rows they came from, the id of the last of those rows (null
   * without one) and the last event id trimmed away (if any).
   */
  const read = async (
    runId: string,
    cursor: number,
  ): Promise<{ events: StreamEvent[]; rows: number; lastRow: number | null; trimmedThrough: number | null }> => {
    const result = await pool.query<{ through: string | null; id: string | null; events: [string, string][] | null }>(
      `SELECT t.through, r.id, r.events FROM (SELECT 1) one
       LEFT JOIN run_event_trims t ON t.run_id = $1
       LEFT JOIN run_events r ON r.run_id = $1 AND r.id >= $2
       ORDER BY r.id`,
      [runId, Math.floor(cursor / PER_ROW)],
    );
    return readRows(result.rows, cursor);
  };

  /** Where a run's log stands: the id of its last event and of its `end` (null before it); null without a log. */
  const startOf = async (runId: string): Promise<{ last: number; end: number | null } | null> => {
    const result = await pool.query<{ last_id: string | null; last_n: number; end_id: string | null; end_n: number }>(
      `SELECT l.id AS last_id, jsonb_array_length(l.events) AS last_n, e.id AS end_id, jsonb_array_length(e.events) AS end_n
       FROM (SELECT 1) one
       LEFT JOIN LATERAL (SELECT id, events FROM run_events WHERE run_id = $1 ORDER BY id DESC LIMIT 1) l ON true
       LEFT JOIN LATERAL (SELECT id, events FROM run_events WHERE run_id = $1 AND is_end LIMIT 1) e ON true`,
      [runId],
    );
    return startOfRow(result.rows[0]);
  };

  /** {@link startOf} and {@link read} from `cursor` in one statement. */
  const startAndRead = async (
    runId: string,
    cursor: number,
  ): Promise<Awaited<ReturnType<typeof read>> & { start: Awaited<ReturnType<typeof startOf>> }> => {
    const result = await pool.query<{
      last_id: string | null;
      last_n: number;
      end_id: string | null;
      end_n: number;
      through: string | null;
      id: string | null;
      events: [string, string][] | null;
    }>(
      `SELECT l.id AS last_id, jsonb_array_length(l.events) AS last_n, e.id AS end_id, jsonb_array_length(e.events) AS end_n,
         t.through, r.id, r.events
       FROM (SELECT 1) one
       LEFT JOIN LATERAL (SELECT id, events FROM run_events WHERE run_id = $1 ORDER BY id DESC LIMIT 1) l ON true
       LEFT JOIN LATERAL (SELECT id, events FROM run_events WHERE run_id = $1 AND is_end LIMIT 1) e ON true
       LEFT JOIN run_event_trims t ON t.run_id = $1
       LEFT JOIN run_events r ON r.run_id = $1 AND r.id >= $2
       ORDER BY r.id`,
      [runId, Math.floor(cursor / PER_ROW)],
    );
    return { start: startOfRow(result.rows[0]), ...readRows(result.rows, cursor) };
  };

  const pruneTimer = setInterval(
    () => void log.prune().catch(() => {}),
    Math.max(1000, Math.min(options.retentionMs, 60_000)),
  );
  pruneTimer.unref();

  const log = {
    async append(runId: string, event: string, data: string) {
      if (ended.has(runId)) return "";
      const buffer = bufferOf(runId);
      if (buffer.failed !== undefined) {
        const failed = buffer.failed;
        buffer.failed = undefined;
        throw failed;
      }
      // A log's first row is written before the append returns: from then on every process sees the log.
      const first = !known.has(runId);
      known.add(runId);
      buffer.events.push([event, data]);
      if (first) {
        await flush(runId);
        return "";
      }
      if (COALESCED.test(event)) {
        buffer.timer ??= setTimeout(() => void flush(runId).catch(() => {}), coalesceMs);
        return "";
      }
      // Written at the end of this turn of the event loop with the turn's other events (a step's
      // `updates`, `values` and `custom` come together), or, while a row of this run is being written,
      // with whatever else comes meanwhile as the next row (group commit): a run's events cost a
      // statement per burst, not one each.
      if (buffer.writing === 0)
        buffer.pending ??= setImmediate(() => {
          buffer.pending = undefined;
          if (buffer.writing === 0) void flush(runId).catch((error) => (buffer.failed ??= error));
        });
      return "";
    },
    async end(runId: string) {
      if (ended.has(runId)) return;
      ended.add(runId);
      setTimeout(() => {
        ended.delete(runId);
        known.delete(runId);
      }, options.retentionMs).unref();
      const buffer = bufferOf(runId);
      buffer.events.push(["end", "null"]);
      await flush(runId, true);
      buffers.delete(runId);
      if (buffer.failed !== undefined) throw buffer.failed;
    },
    /** Resolves once every event appended to the run so far is written (or its write failed). */
    async settled(runId: string) {
      const buffer = buffers.get(runId);
      if (buffer && buffer.events.length > 0) await flush(runId).catch(() => {});
      while (buffer && buffer.writing > 0) await buffer.chain.catch(() => {});
    },
    async has(runId: string) {
      // A log this process wrote (or is writing) is there until it is dropped or pruned.
      if (known.has(runId) || (buffers.get(runId)?.events.length ?? 0) > 0) return true;
      return ((await pool.query("SELECT 1 FROM run_events WHERE run_id = $1 LIMIT 1", [runId])).rowCount ?? 0) > 0;
    },
    async ended(runId: string) {
      return (
        ((await pool.query("SELECT 1 FROM run_events WHERE run_id = $1 AND is_end LIMIT 1", [runId])).rowCount ?? 0) > 0
      );
    },
    async drop(runId: string) {
      const buffer = buffers.get(runId);
      if (buffer?.timer) clearTimeout(buffer.timer);
      buffers.delete(runId);
      counts.delete(runId);
      known.delete(runId);
      // A row still being written would land after the delete.
      await buffer?.chain.catch(() => {});
      await pool.query("DELETE FROM run_events WHERE run_id = $1", [runId]);
      await pool.query("DELETE FROM run_event_trims WHERE run_id = $1", [runId]);
      wake(runId);
      await notifier.notify(CHANNELS.events, runId).catch(() => {});
    },
    async *follow(runId: string, after: string | null, signal: AbortSignal): AsyncGenerator<StreamEvent | GapEvent> {
      // Rows this process writes or is told of, from before the first read on, so none is missed.
      const inbox: (NotifiedRow | undefined)[] = [];
      let ring = () => {};
      const listener = (row?: NotifiedRow) => {
        inbox.push(row);
        ring();
      };
      const onAbort = () => ring();
      signal.addEventListener("abort", onAbort, { once: true });
      let set = wakers.get(runId);
      if (!set) wakers.set(runId, (set = new Set()));
      set.add(listener);
      try {
        // A cursor given up front: where the log stands and the first read come in one statement.
        let cursor = 0;
        if (after !== null) {
          cursor = after === "-1" ? 0 : Number.parseInt(after, 10);
          if (!Number.isFinite(cursor) || cursor < 0) cursor = 0;
        }
        let prefetched = after === null ? undefined : await startAndRead(runId, cursor);
        // Events buffered or being written here count as a log, as for `has`.
        const buffer = buffers.get(runId);
        const start =
          (after === null ? await startOf(runId) : prefetched!.start) ??
          ((buffer?.events.length ?? 0) > 0 || (buffer?.writing ?? 0) > 0 || known.has(runId)
            ? { last: 0, end: null }
            : null);
        if (!start) return;
        if (after === null) cursor = start.last;
        if (start.end !== null && cursor >= start.end) {
          // At or past the end of a finished run (a reconnect after `end`, a made-up id): the run is over.
          yield { id: String(start.end), event: "end", data: "null" };
          return;
        }
        // From the start ("-1") reading begins at the oldest kept event; from an id, or once following, a
        // cursor older than the last trimmed event has missed events.
        let strict = after !== null && after !== "-1";
        let seen = false;
        /** The run's row read through last (every event of it seen), when known. */
        let lastRow: number | null = null;
        let mustRead = true;
        while (!signal.aborted) {
          if (mustRead) {
            mustRead = false;
            const { events, rows, trimmedThrough, lastRow: readThrough } = prefetched ?? (await read(runId, cursor));
            prefetched = undefined;
            lastRow = readThrough;
            if (rows > 0) seen = true;
            if (trimmedThrough !== null && cursor < trimmedThrough && (strict || cursor > 0)) {
              yield {
                gap: {
                  code: "stream_replay_gap",
                  run_id: runId,
                  requested_event_id: String(cursor),
                  earliest_available_event_id: events[0]?.id ?? null,
                  latest_available_event_id: events.at(-1)?.id ?? null,
                  recovery: "reload_durable_state",
                },
              };
              return;
            }
            strict = true;
            for (const event of events) {
              cursor = Number(event.id);
              yield event;
              if (event.event === "end") return;
            }
            // The log was dropped (deleted thread, rejected run): nothing more will come.
            if (rows === 0 && (seen || !(await log.has(runId)))) return;
          }
          // Rows told of that continue what was read are taken as they are; anything else means reading.
          while (inbox.length > 0 && !mustRead) {
            const row = inbox.shift();
            if (row && lastRow !== null && row.id <= lastRow) continue;
            if (!row?.events || lastRow === null || row.prev !== lastRow) {
              mustRead = true;
              break;
            }
            lastRow = row.id;
            for (const event of eventsAfter(row.id, row.events, cursor)) {
              cursor = Number(event.id);
              yield event;
              if (event.event === "end") return;
            }
          }
          if (mustRead || signal.aborted) continue;
          // No word within the poll interval (notifications down): read anyway.
          let timer: NodeJS.Timeout | undefined;
          mustRead = !(await new Promise<boolean>((resolve) => {
            ring = () => resolve(true);
            timer = setTimeout(() => resolve(false), pollMs).unref();
          }));
          clearTimeout(timer);
          ring = () => {};
        }
      } finally {
        signal.removeEventListener("abort", onAbort);
        set.delete(listener);
        if (set.size === 0) wakers.delete(runId);
      }
    },
    /** Deletes the logs of runs that ended more than the retention time ago; returns how many rows went. */
    async prune() {
      const result = await pool.query(
        "DELETE FROM run_events WHERE run_id IN (SELECT run_id FROM run_events WHERE is_end AND created_at < now() - make_interval(secs => $1))",
        [options.retentionMs / 1000],
      );
      await pool.query(
        "DELETE FROM run_event_trims t WHERE NOT EXISTS (SELECT 1 FROM run_events r WHERE r.run_id = t.run_id)",
      );
      return result.rowCount ?? 0;
    },
    async close() {
      clearInterval(pruneTimer);
      unlisten();
      await Promise.all([...buffers.keys()].map((runId) => flush(runId).catch(() => {})));
    },
  };
  return log;
}
