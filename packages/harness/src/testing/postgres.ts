/**
 * A fresh Postgres database per test, on the server the machine provides (127.0.0.1:5432, or
 * DEERFLOW_TEST_DATABASE_URL as the admin connection). When no server answers, `testDatabase()` returns
 * a reason instead, and tests skip printing it.
 *
 * Alone (a file run by hand) each test creates its database and drops it afterwards. Under `npm test`
 * (scripts/test.mjs sets DEERFLOW_TEST_DATABASE_RUN) the run's test files share a few databases
 * instead: a test takes one no other test holds (an advisory lock on the admin connection, held until
 * its `drop()` or its process's end) and empties it (its sessions ended, its schemas dropped, `public`
 * made again), or
 * creates one when all are taken; the runner drops them at its end (`dropRunDatabases`). `DROP DATABASE`
 * makes Postgres write a checkpoint at once and waits for it: every dirty page of every database goes
 * to disk, so beside a file writing thousands of rows a test's drop took seconds and stalled the other
 * files' statements, and a hundred drops cost 0.1 to 0.6 s each on a quiet machine. Dropping schemas
 * forces no checkpoint.
 */
import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";
import pg from "pg";

/** A created database: its URL and the function that drops it (under `npm test`: gives it back). */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** The variable naming the test run whose databases are shared and dropped at its end. */
export const DATABASE_RUN_VARIABLE = "DEERFLOW_TEST_DATABASE_RUN";

/** How long a database's leftover sessions may take to close before the next taker ends them. */
const SESSION_GRACE_MS = 2_000;

/** The first key of the advisory locks that mark a run's database as taken (any constant of ours). */
const LOCK_CLASS = 0x0de3f10;

/** The admin connection used to create and drop test databases. */
export function adminDatabaseUrl(env: Record<string, string | undefined> = process.env): string {
  return env.DEERFLOW_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

/** The prefix of a run's database names (lower-case letters and digits: the run is a name part). */
function runPrefix(run: string): string {
  if (!/^[a-z0-9]{1,16}$/.test(run))
    throw new Error(`${DATABASE_RUN_VARIABLE} must be 1 to 16 letters or digits, got "${run}".`);
  return `deerflow_test_${run}_`;
}

function databaseUrl(name: string): string {
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `work` on a connection to `url` (the admin database by default). */
async function withClient<T>(work: (client: pg.Client) => Promise<T>, url = adminDatabaseUrl()): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates a database for one test (under `npm test`: takes one of the run's, emptied); returns
 * `{ skip }` with the reason when Postgres is unreachable.
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
  const run = process.env[DATABASE_RUN_VARIABLE];
  if (run) return takeRunDatabase(client, runPrefix(run));
  const name = `deerflow_test_${randomBytes(6).toString("hex")}`;
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return {
    url: databaseUrl(name),
    drop: () => withClient((dropper) => dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}

/** Takes a database of the run no other test holds, emptied, or a new one; `client` holds it until `drop()`. */
async function takeRunDatabase(client: pg.Client, prefix: string): Promise<TestDatabase> {
  const take = async (name: string) =>
    (
      await client.query<{ taken: boolean }>("SELECT pg_try_advisory_lock($1, hashtext($2)) AS taken", [
        LOCK_CLASS,
        name,
      ])
    ).rows[0]!.taken;
  try {
    const existing = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname",
      [prefix],
    );
    let name: string | undefined;
    for (const row of existing.rows) if (!name && (await take(row.datname))) name = row.datname;
    if (name) await empty(client, name);
    else {
      // Taken before it exists, so no other test can take it between the two statements.
      name = `${prefix}${randomBytes(6).toString("hex")}`;
      await take(name);
      await client.query(`CREATE DATABASE ${name}`);
    }
    // The held lock must not keep a test's process alive after its last test (a test that never drops).
    const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
    socket.unref();
    const taken = name;
    let given: Promise<void> | undefined;
    // Giving it back ends no session: the test's own pool may still be closing its connections, and
    // ending one of those made its client throw an unhandled error in the test's process after the test
    // (seen in CI). The next taker ends whatever is left (`empty`), as FORCE would for a drop.
    const giveBack = async () => {
      socket.ref();
      await client.end();
    };
    return { url: databaseUrl(taken), drop: () => (given ??= giveBack()) };
  } catch (error) {
    await client.end();
    throw error;
  }
}

/** Empties `name` as it was created: its sessions ended, every schema of ours dropped, `public` made again. */
async function empty(admin: pg.Client, name: string): Promise<void> {
  // Sessions of the last holder still closing get a moment to go by themselves; the rest (a server
  // child a test left running) are ended.
  const sessions = async () =>
    Number(
      (await admin.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1", [name]))
        .rows[0]!.n,
    );
  for (let waited = 0; waited < SESSION_GRACE_MS && (await sessions()) > 0; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
  await withClient(async (client) => {
    const schemas = await client.query<{ nspname: string }>(
      "SELECT nspname FROM pg_namespace WHERE nspname <> 'information_schema' AND NOT starts_with(nspname, 'pg_')",
    );
    const drops = schemas.rows.map((row) => `DROP SCHEMA ${client.escapeIdentifier(row.nspname)} CASCADE;`);
    await client.query(`${drops.join(" ")} CREATE SCHEMA public;`);
  }, databaseUrl(name));
}

/** Drops every database of test run `run` (the runner's end); resolves with how many. */
export async function dropRunDatabases(run: string): Promise<number> {
  const prefix = runPrefix(run);
  const admin = new pg.Client({ connectionString: adminDatabaseUrl(), connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch {
    return 0; // No Postgres: the run made no databases.
  }
  try {
    const rows = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1)",
      [prefix],
    );
    for (const { datname } of rows.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    return rows.rows.length;
  } finally {
    await admin.end();
  }
}
