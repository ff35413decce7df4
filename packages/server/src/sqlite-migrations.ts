/**
 * Named migrations of the server's own tables in the thread database's SQLite file (the user store's and
 * the thread store's), each applied once and recorded by name in `deerflow_migrations`. Each runs in an
 * immediate transaction that checks the record first, so two connections opening one file at once apply
 * it once.
 */
import type Database from "better-sqlite3";

/** One migration: a unique name (never reused) and its statements. Never edit an applied one; add a new one. */
export interface SqliteMigration {
  name: string;
  sql: string;
}

/** Applies the migrations of `migrations` that `db` has not recorded yet, in order. */
export function applySqliteMigrations(db: Database.Database, migrations: readonly SqliteMigration[]): void {
  db.exec("CREATE TABLE IF NOT EXISTS deerflow_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
  const applied = db.prepare<[string], { name: string }>("SELECT name FROM deerflow_migrations WHERE name = ?");
  const record = db.prepare("INSERT INTO deerflow_migrations (name, applied_at) VALUES (?, ?)");
  for (const migration of migrations) {
    db.transaction(() => {
      if (applied.get(migration.name)) return;
      db.exec(migration.sql);
      record.run(migration.name, new Date().toISOString());
    }).immediate();
  }
}
