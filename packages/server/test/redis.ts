/**
 * The Redis the machine provides (127.0.0.1:6379, or DEERFLOW_TEST_REDIS_URL) for the Redis Streams
 * tests: each test gets its own key prefix and removes its keys afterwards. When nobody answers,
 * `testRedis()` returns a reason and the tests skip printing it.
 */
import { randomBytes } from "node:crypto";
import { createClient } from "@redis/client";

/** A reachable Redis: its URL, a fresh key prefix, and the cleanup of that prefix. */
export interface TestRedis {
  url: string;
  prefix: string;
  /** Keys under the prefix (what a test may assert on). */
  keys(): Promise<string[]>;
  cleanup(): Promise<void>;
}

/**
 * Checks Redis and picks a prefix `deerflow-test-<random>:`; `{ skip }` with the reason when unreachable.
 *
 * @example
 * const redis = await testRedis();
 * if ("skip" in redis) return t.skip(redis.skip);
 */
export async function testRedis(): Promise<TestRedis | { skip: string }> {
  const url = process.env.DEERFLOW_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
  const client = createClient({ url, socket: { connectTimeout: 3000, reconnectStrategy: false } });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.destroy();
    const skip = `Redis is not reachable at ${url} (${(error as Error).message}); set DEERFLOW_TEST_REDIS_URL to run the Redis tests.`;
    console.log(`# skipped: ${skip}`);
    return { skip };
  }
  const prefix = `deerflow-test-${randomBytes(6).toString("hex")}:`;
  const keys = async () => (await client.sendCommand(["KEYS", `${prefix}*`])) as string[];
  return {
    url,
    prefix,
    keys,
    async cleanup() {
      const found = await keys();
      if (found.length > 0) await client.sendCommand(["DEL", ...found]);
      client.destroy();
    },
  };
}
