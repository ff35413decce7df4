/**
 * One LISTEN connection per process for the channels the run machinery uses (run queued or finished,
 * cancel requested, events appended, crons changed). Notifications carry ids only, never event data. When the
 * connection drops it reconnects with a backoff; meanwhile every waiter still wakes by its polling
 * timeout, so a lost notification delays work instead of losing it.
 */
import pg from "pg";

/** The channels. */
export const CHANNELS = {
  runs: "deerflow_runs",
  cancel: "deerflow_cancel",
  events: "deerflow_events",
  crons: "deerflow_crons",
} as const;
type Channel = (typeof CHANNELS)[keyof typeof CHANNELS];

/** Process-wide LISTEN/NOTIFY over one connection. */
export interface Notifier {
  /** Calls `listener` with each payload on `channel`; returns the unsubscribe function. */
  on(channel: Channel, listener: (payload: string) => void): () => void;
  /** Sends a notification through the pool (delivered to this process too). */
  notify(channel: Channel, payload: string): Promise<void>;
  /** True while the LISTEN connection is up. */
  connected(): boolean;
  close(): Promise<void>;
}

/** Starts listening on every channel in the background (`ready` settles once the first attempt is over; polling covers the rest). */
export function createNotifier(
  url: string,
  pool: pg.Pool,
  log: (line: string) => void,
): Notifier & { ready: Promise<void> } {
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let client: pg.Client | undefined;
  let up = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (delayMs: number): Promise<void> => {
    if (closed) return;
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    const lost = (error?: Error) => {
      if (client !== next || closed) return;
      up = false;
      client = undefined;
      next.removeAllListeners();
      // A dying connection can emit more than one error; with no listener the process would crash.
      next.on("error", () => {});
      next.end().catch(() => {});
      log(`notifications: connection lost (${error?.message ?? "closed"}); polling until it is back.`);
      retry = setTimeout(() => void connect(Math.min(delayMs * 2, 10_000)), delayMs);
      retry.unref();
    };
    next.on("error", lost);
    next.on("end", () => lost());
    next.on("notification", (message) => {
      for (const listener of listeners.get(message.channel) ?? []) listener(message.payload ?? "");
    });
    client = next;
    try {
      await next.connect();
      for (const channel of Object.values(CHANNELS)) await next.query(`LISTEN ${channel}`);
      up = true;
    } catch (error) {
      lost(error as Error);
    }
  };
  const ready = connect(500);

  return {
    ready,
    on(channel, listener) {
      let set = listeners.get(channel);
      if (!set) listeners.set(channel, (set = new Set()));
      set.add(listener);
      return () => set!.delete(listener);
    },
    async notify(channel, payload) {
      await pool.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    connected: () => up,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const current = client;
      client = undefined;
      up = false;
      await current?.end().catch(() => {});
    },
  };
}
