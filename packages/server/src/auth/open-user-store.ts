/**
 * Opens the user store where the harness keeps its threads (the SQLite checkpoint file, or the
 * Postgres database), and the upgrade of a single-user home when its first admin is created.
 */
import type { Harness } from "@deerflow/harness";
import { createPostgresUserStore } from "./postgres-users.js";
import { openSqliteUserStore } from "./sqlite-users.js";
import type { UserRecord, UserStore } from "./types.js";

/** The user store of this harness's database. */
export function openUserStore(harness: Harness): UserStore {
  if (harness.setup.postgres) return createPostgresUserStore(harness.setup.postgres.pool);
  const file = harness.setup.store?.file;
  if (!file)
    throw new Error(
      "Accounts need the built-in SQLite store (createHarness without a checkpointer option): users live next to the threads.",
    );
  return openSqliteUserStore(file);
}

/**
 * The home's local memory becomes the first admin's (their threads were adopted by `addUser`), so a
 * single-user home upgraded to accounts keeps everything under its first admin.
 */
export async function adoptLocalHome(harness: Harness, user: UserRecord, log: (line: string) => void): Promise<void> {
  const adopted = await harness.adoptLocalMemory(user.id);
  if (adopted.moved.length > 0)
    log(`accounts: the home's memory is now ${user.name}'s (${adopted.moved.length} file(s)).`);
  for (const file of adopted.kept)
    log(`accounts: ${file} was left in place: ${user.name} already had a memory file for that agent.`);
}
