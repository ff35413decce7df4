/**
 * The in-memory EventLog: per run, an ordered list of events with counter ids ("1", "2", ...), readers
 * that replay then follow, and limits. A log keeps at most `maxEvents` events (the oldest go first, the
 * terminal `end` is never dropped) and stays `retentionMs` after its end so a reload can rejoin. A
 * reader whose cursor points before the oldest kept event gets an explicit gap instead of a silent hole.
 */
import type { EventLog, GapEvent, StreamEvent } from "./types.js";

interface RunLog {
  events: StreamEvent[];
  /** Id of the next event. */
  next: number;
  ended: boolean;
  wake: Set<() => void>;
  expiry?: NodeJS.Timeout;
}

/** Options of the in-memory log. */
export interface MemoryEventLogOptions {
  maxEvents: number;
  retentionMs: number;
}

/** Creates the in-memory event log. */
export function createMemoryEventLog(options: MemoryEventLogOptions): EventLog & { size(): number } {
  const logs = new Map<string, RunLog>();
  const logOf = (runId: string): RunLog => {
    let log = logs.get(runId);
    if (!log) {
      log = { events: [], next: 1, ended: false, wake: new Set() };
      logs.set(runId, log);
    }
    return log;
  };
  const push = (log: RunLog, event: string, data: string): string => {
    const id = String(log.next++);
    log.events.push({ id, event, data });
    if (log.events.length > options.maxEvents) log.events.splice(0, log.events.length - options.maxEvents);
    for (const wake of [...log.wake]) wake();
    return id;
  };

  return {
    size: () => logs.size,
    async append(runId, event, data) {
      const log = logOf(runId);
      if (log.ended) return "";
      return push(log, event, data);
    },
    async end(runId) {
      const log = logOf(runId);
      if (log.ended) return;
      push(log, "end", "null");
      log.ended = true;
      log.expiry = setTimeout(() => logs.delete(runId), options.retentionMs);
      log.expiry.unref();
    },
    async has(runId) {
      return logs.has(runId);
    },
    async ended(runId) {
      return logs.get(runId)?.ended ?? false;
    },
    async drop(runId) {
      const log = logs.get(runId);
      if (log?.expiry) clearTimeout(log.expiry);
      logs.delete(runId);
      if (log) for (const wake of [...log.wake]) wake();
    },
    async *follow(runId, after, signal): AsyncGenerator<StreamEvent | GapEvent> {
      const log = logs.get(runId);
      if (!log) return;
      let cursor: number;
      if (after === null) cursor = log.next - 1;
      else if (after === "-1") cursor = 0;
      else {
        cursor = Number.parseInt(after, 10);
        if (!Number.isFinite(cursor) || cursor < 0) cursor = 0;
      }
      const last = log.events.at(-1);
      if (log.ended && last && cursor >= Number(last.id)) {
        // At or past the end of a finished run (a reconnect after `end`, a made-up id): the run is over.
        yield last;
        return;
      }
      const first = log.events[0];
      if (after !== null && after !== "-1" && first && Number(first.id) > cursor + 1) {
        yield {
          gap: {
            code: "stream_replay_gap",
            run_id: runId,
            requested_event_id: after,
            earliest_available_event_id: first.id,
            latest_available_event_id: log.events.at(-1)?.id ?? null,
            recovery: "reload_durable_state",
          },
        };
        return;
      }
      while (!signal.aborted) {
        // Ids are consecutive, so the first unread event sits at (cursor + 1 - first id): no scan.
        const firstId = log.events.length > 0 ? Number(log.events[0]!.id) : log.next;
        const pending = log.events.slice(Math.max(0, cursor + 1 - firstId));
        if (pending.length > 0 && Number(pending[0]!.id) > cursor + 1 && cursor > 0) {
          // The reader fell behind the bounded log while following.
          yield {
            gap: {
              code: "stream_replay_gap",
              run_id: runId,
              requested_event_id: String(cursor),
              earliest_available_event_id: pending[0]!.id,
              latest_available_event_id: pending.at(-1)!.id,
              recovery: "reload_durable_state",
            },
          };
          return;
        }
        for (const event of pending) {
          cursor = Number(event.id);
          yield event;
          if (event.event === "end") return;
        }
        // Appended while this reader was between yields (their wake-up found nobody waiting): read on.
        if (log.next - 1 > cursor && logs.get(runId) === log) continue;
        if (log.ended || logs.get(runId) !== log) return;
        await new Promise<void>((resolve) => {
          const wake = () => {
            log.wake.delete(wake);
            signal.removeEventListener("abort", wake);
            resolve();
          };
          log.wake.add(wake);
          signal.addEventListener("abort", wake, { once: true });
        });
      }
    },
  };
}
