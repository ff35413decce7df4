/**
 * The Redis Streams EventLog (`stream.backend: redis`): each run's events are one Redis Stream, so every
 * process on that Redis can replay, follow and join every run whoever executes it, and event churn stays
 * off the database. Runs, threads and checkpoints stay in the database, the source of truth; this log has
 * the same contract as the in-memory one (bounded, kept a while after `end`, an explicit gap) and is no
 * more durable than it: a client that finds it gone reloads the thread's state.
 *
 * Entries are added with ids `E-*`, E the time the stream began (its epoch), so Redis numbers them
 * E-1, E-2, E-3... and the SSE id is that Redis id. One Lua script appends: it refuses anything after `end` (whichever
 * process writes), trims the stream to `maxEvents` (the oldest go first; `end` is last, never trimmed) and
 * renews the key's expiry: `retentionMs` once ended, `openTtlMs` while open (a run nobody ends cannot
 * leak a key). Followers read what is there with XRANGE, then wait with XREAD BLOCK on a connection of
 * their own (a blocking read holds its connection), taken from a small pool of idle ones. A stream
 * that Redis lost (a restart without persistence) and a writer began again has a new epoch, so a cursor
 * into the old one gets a gap instead of events of another numbering, or a wait for ids that never come.
 * A bare number as a cursor (`Last-Event-ID: 3`) means that entry of the current epoch.
 */
import type { RedisClient } from "./redis-connection.js";
import type { EventLog, GapEvent, StreamEvent } from "./types.js";

const APPEND = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local next
if last[1] then
  if last[1][2][2] == 'end' then return '' end
  next = string.match(last[1][1], '^(%d+)-') .. '-*'
else
  local now = redis.call('TIME')
  next = now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000)) .. '-1'
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[3], next, 'e', ARGV[1], 'd', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return id`;

/** Entries read per XRANGE / XREAD. */
const PAGE = 500;
/** Idle blocking connections kept for the next follower. */
const IDLE_BLOCKERS = 8;

type RawEntry = [string, string[]];

/** Options of the Redis log. */
export interface RedisEventLogOptions {
  /** Prefix of every key (`stream.key_prefix`). */
  keyPrefix: string;
  maxEvents: number;
  retentionMs: number;
  /** Expiry of a stream whose run never ends (default 24 h, renewed by every event). */
  openTtlMs?: number;
  /** Longest single XREAD BLOCK before a follower checks the stream still exists (default 2 s). */
  blockMs?: number;
}

/** Creates the log on a connected client; `close()` closes the followers' connections (not `client`). */
export function createRedisEventLog(
  client: RedisClient,
  options: RedisEventLogOptions,
): EventLog & { close(): Promise<void> } {
  const openTtlMs = options.openTtlMs ?? 24 * 3_600_000;
  const blockMs = options.blockMs ?? 2000;
  const keyOf = (runId: string) => `${options.keyPrefix}run:${runId}`;
  const idle: RedisClient[] = [];
  const busy = new Set<RedisClient>();
  let closed = false;

  const command = <T>(args: string[]) => client.sendCommand(args) as Promise<T>;
  const epochOf = (id: string) => id.slice(0, id.indexOf("-"));
  const seqOf = (id: string) => Number(id.slice(id.indexOf("-") + 1));
  const toEvent = ([id, fields]: RawEntry): StreamEvent => ({ id, event: fields[1]!, data: fields[3]! });
  const last = async (key: string) => (await command<RawEntry[]>(["XREVRANGE", key, "+", "-", "COUNT", "1"]))[0];
  const append = (runId: string, event: string, data: string, ttlMs: number) =>
    command<string>(["EVAL", APPEND, "1", keyOf(runId), event, data, String(options.maxEvents), String(ttlMs)]);

  const takeBlocker = async (): Promise<RedisClient> => {
    const reused = idle.pop();
    const blocker = reused ?? client.duplicate();
    busy.add(blocker);
    if (!reused) {
      blocker.on("error", () => {}); // The main client reports connection trouble.
      await blocker.connect();
    }
    return blocker;
  };
  const giveBack = (blocker: RedisClient) => {
    busy.delete(blocker);
    if (!closed && idle.length < IDLE_BLOCKERS && blocker.isReady) idle.push(blocker);
    else blocker.destroy();
  };

  const gapAt = (runId: string, requested: string, earliest: string | null, latest: string | null): GapEvent => ({
    gap: {
      code: "stream_replay_gap",
      run_id: runId,
      requested_event_id: requested,
      earliest_available_event_id: earliest,
      latest_available_event_id: latest,
      recovery: "reload_durable_state",
    },
  });

  /** New entries after `cursor`, waiting up to blockMs; "aborted" when the reader went away (its connection is closed). */
  const waitForMore = async (
    blocker: RedisClient,
    key: string,
    cursor: string,
    signal: AbortSignal,
  ): Promise<RawEntry[] | "aborted"> => {
    const read = blocker.sendCommand([
      "XREAD",
      "COUNT",
      String(PAGE),
      "BLOCK",
      String(blockMs),
      "STREAMS",
      key,
      cursor,
    ]) as Promise<[string, RawEntry[]][] | null>;
    let onAbort!: () => void;
    const aborted = new Promise<"aborted">((resolve) => {
      onAbort = () => resolve("aborted");
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const result = await Promise.race([read, aborted]);
      if (result === "aborted") {
        read.catch(() => {});
        return "aborted";
      }
      return result?.[0]?.[1] ?? [];
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  };

  const log: EventLog & { close(): Promise<void> } = {
    async append(runId, event, data) {
      return append(runId, event, data, openTtlMs);
    },
    async end(runId) {
      await append(runId, "end", "null", options.retentionMs);
    },
    async has(runId) {
      return (await command<number>(["EXISTS", keyOf(runId)])) > 0;
    },
    async ended(runId) {
      return (await last(keyOf(runId)))?.[1][1] === "end";
    },
    async drop(runId) {
      await command(["DEL", keyOf(runId)]);
    },
    async *follow(runId, after, signal): AsyncGenerator<StreamEvent | GapEvent> {
      const key = keyOf(runId);
      const newest = await last(key);
      if (!newest) return;
      // The cursor is an id of this stream's epoch; one of an earlier epoch is of a stream Redis lost.
      const epoch = epochOf(newest[0]);
      let cursor = 0;
      if (after === null) cursor = seqOf(newest[0]);
      else if (after !== "-1") {
        const [given, number] = /^\d+-\d+$/.test(after)
          ? [epochOf(after), seqOf(after)]
          : [epoch, Number.parseInt(after, 10)];
        if (given !== epoch) {
          yield gapAt(runId, after, null, newest[0]);
          return;
        }
        cursor = Number.isFinite(number) && number > 0 ? number : 0;
      }
      if (newest[1][1] === "end" && cursor >= seqOf(newest[0])) {
        // At or past the end of a finished run (a reconnect after `end`, a made-up id): the run is over.
        yield toEvent(newest);
        return;
      }
      // From the start ("-1", or only new events) reading begins at the oldest kept event; from an id (or
      // once following), a first event past the cursor's successor means events were trimmed away.
      let strict = after !== null && after !== "-1";
      let requested = after ?? `${epoch}-${cursor}`;
      let blocker: RedisClient | undefined;
      try {
        while (!signal.aborted) {
          let batch = await command<RawEntry[]>(["XRANGE", key, `(${epoch}-${cursor}`, "+", "COUNT", String(PAGE)]);
          if (batch.length === 0) {
            const tail = await last(key);
            if (!tail) return; // Dropped (deleted thread, rejected run) or expired.
            if (epochOf(tail[0]) !== epoch || seqOf(tail[0]) < cursor) {
              yield gapAt(runId, requested, null, tail[0]);
              return;
            }
            blocker ??= await takeBlocker();
            const more = await waitForMore(blocker, key, `${epoch}-${cursor}`, signal);
            if (more === "aborted") {
              busy.delete(blocker);
              blocker.destroy();
              blocker = undefined;
              return;
            }
            batch = more;
          }
          if (batch.length === 0) continue;
          const first = batch[0]![0];
          const restarted = epochOf(first) !== epoch;
          if (restarted || (seqOf(first) > cursor + 1 && (strict || cursor > 0))) {
            const tail = await last(key);
            yield gapAt(runId, requested, restarted ? null : first, tail?.[0] ?? null);
            return;
          }
          strict = true;
          for (const entry of batch) {
            const event = toEvent(entry);
            cursor = seqOf(entry[0]);
            requested = entry[0];
            yield event;
            if (event.event === "end") return;
          }
        }
      } finally {
        if (blocker) giveBack(blocker);
      }
    },
    async close() {
      closed = true;
      for (const blocker of [...idle, ...busy]) blocker.destroy();
      idle.length = 0;
      busy.clear();
    },
  };
  return log;
}
