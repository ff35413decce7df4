/**
 * The Postgres EventLog: every process can stream, replay and join every run, whoever executes it.
 *
 * Rows of `run_events` hold batches: token-sized events (`messages`, `events`) wait up to
 * `coalesceMs` and go out together, so a long answer is a handful of rows, not one per token; every
 * other event flushes the batch at once, keeping order. A row's id comes from a sequence and an event's
 * id is `row id × 10000 + its index in the row`, so ids grow across rows and a cursor names one event.
 * After a write, a NOTIFY carries only the run id; followers re-read the table from their cursor (and
 * poll every second if notifications are down). Rows are pruned `retentionMs` after the run's `end`.
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

interface Buffer {
  events: [string, string][];
  timer?: NodeJS.Timeout;
  /** The chain of flushes of this run, so rows are written in order. */
  chain: Promise<void>;
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
): EventLog & { prune(): Promise<number>; close(): Promise<void> } {
  const coalesceMs = options.coalesceMs ?? 25;
  const pollMs = options.pollMs ?? 1000;
  const maxEvents = options.maxEvents ?? 20_000;
  const buffers = new Map<string, Buffer>();
  /** Events this process believes a run holds (read once from the table, then counted as rows are written). */
  const counts = new Map<string, number>();
  const ended = new Set<string>();
  const wakers = new Map<string, Set<() => void>>();
  const wake = (runId: string) => {
    for (const fn of [...(wakers.get(runId) ?? [])]) fn();
  };
  const unlisten = notifier.on(CHANNELS.events, (runId) => wake(runId));

  const bufferOf = (runId: string): Buffer => {
    let buffer = buffers.get(runId);
    if (!buffer) buffers.set(runId, (buffer = { events: [], chain: Promise.resolve() }));
    return buffer;
  };

  /** Writes what is buffered as one row (after the run's earlier rows). */
  const flush = (runId: string, isEnd = false): Promise<void> => {
    const buffer = bufferOf(runId);
    if (buffer.timer) clearTimeout(buffer.timer);
    buffer.timer = undefined;
    const batch = buffer.events.splice(0);
    if (batch.length === 0) return buffer.chain;
    buffer.chain = buffer.chain.then(async () => {
      let count =
        counts.get(runId) ??
        Number(
          (
            await pool.query(
              "SELECT COALESCE(sum(jsonb_array_length(events)), 0) AS n FROM run_events WHERE run_id = $1",
              [runId],
            )
          ).rows[0].n,
        );
      for (let start = 0; start < batch.length; start += PER_ROW) {
        const part = batch.slice(start, start + PER_ROW);
        await pool.query("INSERT INTO run_events (run_id, events, is_end) VALUES ($1, $2::jsonb, $3)", [
          runId,
          JSON.stringify(part),
          isEnd && start + PER_ROW >= batch.length,
        ]);
        count += part.length;
      }
      if (count > maxEvents) count -= await trim(runId);
      if (isEnd) counts.delete(runId);
      else counts.set(runId, count);
      wake(runId);
      await notifier.notify(CHANNELS.events, runId).catch(() => {});
    });
    const written = buffer.chain;
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

  /** Events after the cursor, the number of rows they came from, and the last event id trimmed away (if any). */
  const read = async (
    runId: string,
    cursor: number,
  ): Promise<{ events: StreamEvent[]; rows: number; trimmedThrough: number | null }> => {
    const result = await pool.query<{ through: string | null; id: string | null; events: [string, string][] | null }>(
      `SELECT t.through, r.id, r.events FROM (SELECT 1) one
       LEFT JOIN run_event_trims t ON t.run_id = $1
       LEFT JOIN run_events r ON r.run_id = $1 AND r.id >= $2
       ORDER BY r.id`,
      [runId, Math.floor(cursor / PER_ROW)],
    );
    const events: StreamEvent[] = [];
    let rows = 0;
    for (const row of result.rows) {
      if (row.id === null || !row.events) continue;
      rows += 1;
      const base = Number(row.id) * PER_ROW;
      row.events.forEach(([event, data], index) => {
        if (base + index > cursor) events.push({ id: String(base + index), event, data });
      });
    }
    const through = result.rows[0]?.through;
    return { events, rows, trimmedThrough: through === null || through === undefined ? null : Number(through) };
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
      buffer.events.push([event, data]);
      if (COALESCED.test(event)) {
        buffer.timer ??= setTimeout(() => void flush(runId).catch(() => {}), coalesceMs);
        return "";
      }
      await flush(runId);
      return "";
    },
    async end(runId: string) {
      if (ended.has(runId)) return;
      ended.add(runId);
      setTimeout(() => ended.delete(runId), options.retentionMs).unref();
      bufferOf(runId).events.push(["end", "null"]);
      await flush(runId, true);
      buffers.delete(runId);
    },
    async has(runId: string) {
      if ((buffers.get(runId)?.events.length ?? 0) > 0) return true;
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
      await pool.query("DELETE FROM run_events WHERE run_id = $1", [runId]);
      await pool.query("DELETE FROM run_event_trims WHERE run_id = $1", [runId]);
      wake(runId);
      await notifier.notify(CHANNELS.events, runId).catch(() => {});
    },
    async *follow(runId: string, after: string | null, signal: AbortSignal): AsyncGenerator<StreamEvent | GapEvent> {
      if (!(await log.has(runId))) return;
      let cursor: number;
      if (after === null) {
        const last = await pool.query<{ id: string; n: number }>(
          "SELECT id, jsonb_array_length(events) AS n FROM run_events WHERE run_id = $1 ORDER BY id DESC LIMIT 1",
          [runId],
        );
        cursor = last.rows[0] ? Number(last.rows[0].id) * PER_ROW + last.rows[0].n - 1 : 0;
      } else {
        cursor = after === "-1" ? 0 : Number.parseInt(after, 10);
        if (!Number.isFinite(cursor) || cursor < 0) cursor = 0;
      }
      const end = await pool.query<{ id: string; n: number }>(
        "SELECT id, jsonb_array_length(events) AS n FROM run_events WHERE run_id = $1 AND is_end LIMIT 1",
        [runId],
      );
      const endId = end.rows[0] ? Number(end.rows[0].id) * PER_ROW + end.rows[0].n - 1 : null;
      if (endId !== null && cursor >= endId) {
        // At or past the end of a finished run (a reconnect after `end`, a made-up id): the run is over.
        yield { id: String(endId), event: "end", data: "null" };
        return;
      }
      // From the start ("-1") reading begins at the oldest kept event; from an id, or once following, a
      // cursor older than the last trimmed event has missed events.
      let strict = after !== null && after !== "-1";
      let seen = false;
      while (!signal.aborted) {
        // Subscribe before reading so a write between the read and the wait is not missed.
        let woken!: () => void;
        const wokenUp = new Promise<void>((resolve) => (woken = resolve));
        let set = wakers.get(runId);
        if (!set) wakers.set(runId, (set = new Set()));
        set.add(woken);
        try {
          const { events, rows, trimmedThrough } = await read(runId, cursor);
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
          const timer = new Promise<void>((resolve) => setTimeout(resolve, pollMs).unref());
          const aborted = new Promise<void>((resolve) =>
            signal.addEventListener("abort", () => resolve(), { once: true }),
          );
          await Promise.race([wokenUp, timer, aborted]);
        } finally {
          set.delete(woken);
          if (set.size === 0) wakers.delete(runId);
        }
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
