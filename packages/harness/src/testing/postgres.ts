/**
 * A fresh Postgres database per test: created on the server the machine provides (127.0.0.1:5432, or
 * DEERFLOW_TEST_DATABASE_URL as the admin connection) and dropped afterwards. When no server answers,
 * `testDatabase()` returns a reason instead, and tests skip printing it.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

/** A created database: its URL and the function that drops it. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** The admin connection used to create and drop test databases. */
export function adminDatabaseUrl(env: Record<string, string | undefined> = process.env): string {
  return env.DEERFLOW_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

/**
 * Creates `deerflow_test_<random>`; returns `{ skip }` with the reason when Postgres is unreachable.
 *
 * @example
 * const db = await testDatabase();
 * if ("skip" in db) return t.skip(db.skip);
 */
export async function testDatabase(): Promise<TestDatabase | { skip: string }> {
  const admin = adminDatabaseUrl();
  const client = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (error) {
    const skip = `Postgres is not reachable at ${admin} (${(error as Error).message}); set DEERFLOW_TEST_DATABASE_URL to run the Postgres tests.`;
    console.log(`# skipped: ${skip}`);
    return { skip };
  }
  const name = `deerflow_test_${randomBytes(6).toString("hex")}`;
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: admin });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
