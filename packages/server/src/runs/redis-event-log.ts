/**
 * The Redis Streams EventLog (`stream.backend: redis`): each run's events are one Redis Stream, so every
 * process on that Redis can replay, follow and join every run whoever executes it, and event churn stays
 * off the database. Runs, threads and checkpoints stay in the database, the source of truth; this log has
 * the same contract as the in-memory one (bounded, kept a while after `end`, an explicit gap) and is no
 * more durable than it: a client that finds it gone reloads the thread's state.
 *
 * Entries are added with ids `0-*`, so Redis numbers them 1, 2, 3... per run and the SSE id is that
 * number, as with the in-memory log. One Lua script appends: it refuses anything after `end` (whichever
 * process writes), trims the stream to `maxEvents` (the oldest go first; `end` is last, never trimmed) and
 * renews the key's expiry: `retentionMs` once ended, `openTtlMs` while open (a run nobody ends cannot
 * leak a key). Followers read what is there with XRANGE, then wait with XREAD BLOCK on a connection of
 * their own (a blocking read holds its connection), taken from a small pool of idle ones. A stream
 * that Redis lost and a writer began again numbers from 1 anew; a follower past that point gets a gap
 * instead of waiting for ids that will never mean what it expects.
 */
import type { RedisClient } from "./redis-connection.js";
import type { EventLog, GapEvent, StreamEvent } from "./types.js";

const APPEND = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if last[1] and last[1][2][2] == 'end' then return '' end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[3], '0-*', 'e', ARGV[1], 'd', ARGV[2])
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
export function createRedisEventLog(client: RedisClient, options: RedisEventLogOptions): EventLog & { close(): Promise<void> } {
  const openTtlMs = options.openTtlMs ?? 24 * 3_600_000;
  const blockMs = options.blockMs ?? 2000;
  const keyOf = (runId: string) => `${options.keyPrefix}run:${runId}`;
  const idle: RedisClient[] = [];
  const busy = new Set<RedisClient>();
  let closed = false;

  const command = <T>(args: string[]) => client.sendCommand(args) as Promise<T>;
  const seq = (id: string) => Number(id.slice(id.indexOf("-") + 1));
  const toEvent = ([id, fields]: RawEntry): StreamEvent => ({ id: String(seq(id)), event: fields[1]!, data: fields[3]! });
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

  const gapAt = (runId: string, cursor: number, earliest: number | null, latest: number | null): GapEvent => ({
    gap: {
      code: "stream_replay_gap",
      run_id: runId,
      requested_event_id: String(cursor),
      earliest_available_event_id: earliest === null ? null : String(earliest),
      latest_available_event_id: latest === null ? null : String(latest),
      recovery: "reload_durable_state",
    },
  });

  /** New entries after `cursor`, waiting up to blockMs; "aborted" when the reader went away (its connection is closed). */
  const waitForMore = async (blocker: RedisClient, key: string, cursor: number, signal: AbortSignal): Promise<RawEntry[] | "aborted"> => {
    const read = blocker.sendCommand(["XREAD", "COUNT", String(PAGE), "BLOCK", String(blockMs), "STREAMS", key, `0-${cursor}`]) as Promise<[string, RawEntry[]][] | null>;
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
      const id = await append(runId, event, data, openTtlMs);
      return id ? String(seq(id)) : "";
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
      if (!(await log.has(runId))) return;
      let cursor: number;
      if (after === null) {
        const newest = await last(key);
        cursor = newest ? seq(newest[0]) : 0;
      } else {
        cursor = after === "-1" ? 0 : Number.parseInt(after, 10);
        if (!Number.isFinite(cursor) || cursor < 0) cursor = 0;
      }
      // From the start ("-1", or only new events) the oldest kept event is where reading begins; from an id
      // (or once following), a first event past the cursor's successor means events were trimmed away.
      let strict = after !== null && after !== "-1";
      let blocker: RedisClient | undefined;
      try {
        while (!signal.aborted) {
          let batch = await command<RawEntry[]>(["XRANGE", key, `(0-${cursor}`, "+", "COUNT", String(PAGE)]);
          if (batch.length === 0) {
            const newest = await last(key);
            if (!newest) return; // Dropped (deleted thread, rejected run) or expired.
            if (seq(newest[0]) < cursor) {
              // The stream restarted below the cursor (Redis lost it and a writer began it again): ids no
              // longer line up, so say so rather than wait for ids that mean something else now.
              yield gapAt(runId, cursor, null, seq(newest[0]));
              return;
            }
            blocker ??= await takeBlocker();
            const more = await waitForMore(blocker, key, cursor, signal);
            if (more === "aborted") {
              busy.delete(blocker);
              blocker.destroy();
              blocker = undefined;
              return;
            }
            batch = more;
          }
          if (batch.length === 0) continue;
          const first = seq(batch[0]![0]);
          if (first > cursor + 1 && (strict || cursor > 0)) {
            const newest = await last(key);
            yield gapAt(runId, cursor, first, newest ? seq(newest[0]) : null);
            return;
          }
          strict = true;
          for (const entry of batch) {
            const event = toEvent(entry);
            cursor = Number(event.id);
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
