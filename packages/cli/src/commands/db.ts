/**
 * `deerflow db migrate`: brings the Postgres database (database.backend postgres) to this build's schema
 * and says which versions it applied. The server migrates on start too; this is for a deploy step that
 * migrates once before starting many processes. Safe to run beside running servers (advisory lock).
 * It then moves any history archive still in the home's SQLite file (written before the archive moved to
 * Postgres, or before the switch from SQLite) into the database, once per thread.
 */
import {
  databaseFile,
  importSqliteArchive,
  loadConfig,
  migrate,
  openPostgresDatabase,
  redact,
  resolveDatabaseUrl,
  resolveHome,
  SCHEMA_VERSION,
} from "@deerflow/harness";
import { UsageError } from "../usage-error.js";
import { parseCommandArgs } from "../command-args.js";

/** Entry point of `deerflow db`. */
export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs("db", {
    args: argv,
    options: { config: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  const [action] = parsed.positionals;
  if (action !== "migrate") throw new UsageError(`Unknown db action "${action ?? ""}". Use: deerflow db migrate.`);
  const config = loadConfig({ path: parsed.values.config });
  if (config.database.backend !== "postgres") {
    throw new UsageError(
      'database.backend is "sqlite": its tables are created when used, nothing to migrate. Set database.backend: postgres and database.url to use Postgres.',
    );
  }
  const url = resolveDatabaseUrl(config.database);
  const db = await openPostgresDatabase(url, { migrate: false });
  try {
    const applied = await migrate(db.pool, db.saver);
    process.stdout.write(
      applied.length > 0
        ? `Migrated ${redact(url)} to schema version ${SCHEMA_VERSION} (applied ${applied.join(", ")}).\n`
        : `${redact(url)} is at schema version ${SCHEMA_VERSION}; nothing to do.\n`,
    );
    const file = databaseFile(resolveHome(), config.database);
    const imported = await importSqliteArchive(file, db.pool);
    if (imported.threads > 0)
      process.stdout.write(
        `Moved the history archive of ${imported.threads} thread(s) (${imported.messages} compacted messages) from ${file} into the database.\n`,
      );
    if (imported.skipped > 0)
      process.stdout.write(
        `Left ${imported.skipped} thread(s) of ${file} alone: the database already has their archive.\n`,
      );
  } finally {
    await db.close();
  }
  return 0;
}
