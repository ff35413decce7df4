/**
 * Named SQLite migrations of the server's own tables in the thread database, each applied once and
 * recorded in `deerflow_migrations`, in its own transaction. Every store that owns tables (users,
 * crons) keeps its list and applies it when it opens the file; the names keep the lists apart.
 */
import type Database from "better-sqlite3";

/** One migration: its unique name and its statements. */
export interface SqliteMigration {
  name: string;
  sql: string;
}

/** Applies the migrations of `list` that `db` has not recorded yet, in order. */
export function applySqliteMigrations(db: Database.Database, list: readonly SqliteMigration[]): void {
  db.exec("CREATE TABLE IF NOT EXISTS deerflow_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
  const applied = new Set(
    db
      .prepare<[], { name: string }>("SELECT name FROM deerflow_migrations")
      .all()
      .map((row) => row.name),
  );
  for (const migration of list) {
    if (applied.has(migration.name)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare("INSERT OR IGNORE INTO deerflow_migrations (name, applied_at) VALUES (?, ?)").run(
        migration.name,
        new Date().toISOString(),
      );
    })();
  }
}
