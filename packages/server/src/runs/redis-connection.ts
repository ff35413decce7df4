/**
 * The Redis of `stream.backend: redis`: which URL (`stream.url`, then REDIS_URL), checked when the
 * config is read, and a connection that fails at start with what is wrong instead of retrying forever.
 * Once a process is up, a lost connection is retried (commands wait for it) like any Redis client does.
 */
import { createClient, type RedisClientType } from "@redis/client";
import { ConfigError, HarnessError } from "@deerflow/harness";

/** A connected client of the `@redis/client` package. */
export type RedisClient = RedisClientType;

/** The Redis URL and the key it came from (for messages). */
export interface RedisTarget {
  url: string;
  key: "stream.url" | "REDIS_URL";
}

/**
 * Resolves the Redis URL: `stream.url`, then REDIS_URL. Throws a ConfigError naming the key when it is
 * missing or not a redis:// (rediss://) URL.
 *
 * @example
 * resolveRedisUrl({ url: null }, { REDIS_URL: "redis://127.0.0.1:6379" }); // { url: "redis://127.0.0.1:6379", key: "REDIS_URL" }
 */
export function resolveRedisUrl(
  stream: { url: string | null },
  env: Record<string, string | undefined> = process.env,
): RedisTarget {
  const key = stream.url ? "stream.url" : env.REDIS_URL ? "REDIS_URL" : null;
  const value = stream.url ?? env.REDIS_URL;
  if (!key || !value) {
    throw new ConfigError(
      'stream.backend is "redis" but no stream.url is set. Set stream.url (redis://host:6379) in config.yaml or REDIS_URL.',
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`${key} is not a URL ("${redact(value)}"). Use redis://[:password@]host:6379[/db].`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new ConfigError(
      `${key} must start with redis:// or rediss:// (got "${parsed.protocol}"). Use redis://[:password@]host:6379[/db].`,
    );
  }
  if (!parsed.hostname)
    throw new ConfigError(`${key} names no host ("${redact(value)}"). Use redis://[:password@]host:6379[/db].`);
  return { url: value, key };
}

/**
 * Creates a client for the target; `connect()` on it rejects with a HarnessError saying what is wrong
 * when Redis does not answer at start. After the first connection, drops are retried (up to 2 s apart).
 */
export function createRedisClient(
  target: RedisTarget,
  log: (line: string) => void,
): RedisClient & { connectChecked(): Promise<void> } {
  let connected = false;
  let reported = false;
  const client = createClient({
    url: target.url,
    socket: {
      connectTimeout: 5000,
      reconnectStrategy: (retries: number, cause: Error) => (connected ? Math.min(100 * 2 ** retries, 2000) : cause),
    },
  });
  // Without a listener an error event would crash the process; report a drop once until it is back.
  client.on("error", (error: Error) => {
    if (!connected || reported) return;
    reported = true;
    log(`redis at ${redact(target.url)}: ${error.message}; retrying.`);
  });
  client.on("ready", () => (reported = false));
  return Object.assign(client, {
    async connectChecked() {
      try {
        await client.connect();
        await client.ping();
        connected = true;
      } catch (error) {
        if (client.isOpen) client.destroy(); // A failed first connect has closed it already.
        throw connectError(target, error);
      }
    },
  });
}

function connectError(target: RedisTarget, error: unknown): HarnessError {
  const reason = (error as Error)?.message?.split("\n")[0] ?? String(error);
  const shown = redact(target.url);
  const message = /WRONGPASS|NOAUTH|AUTH/i.test(reason)
    ? `Redis at ${shown} refused the credentials (${reason}). Check the password in ${target.key}.`
    : `Cannot reach Redis at ${shown} (${reason}). Start Redis or fix ${target.key} (stream.backend redis).`;
  return new HarnessError("storage_unusable", message, { cause: error });
}

/** The URL with its password hidden (Redis URLs often have a password and no user). */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1***@");
}
