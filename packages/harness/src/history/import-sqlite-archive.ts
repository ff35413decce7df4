/**
 * Moves a history archive from the SQLite file into Postgres, for a service that ran on Postgres before
 * the archive moved there (its compacted messages were written to `{home}/checkpoints.sqlite`) or that
 * switches from SQLite. `deerflow db migrate` runs it; without it those threads would show and search
 * only what is still in their checkpoints.
 *
 * Each thread is copied as it is (same sequence numbers, messages and markers) and indexed for search,
 * in one transaction under the archive's per-thread lock. A thread that already has an archive in
 * Postgres is left alone, so running it again imports nothing twice. The SQLite file is only read.
 */
import { existsSync } from "node:fs";
import { mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import Database from "better-sqlite3";
import type pg from "pg";
import { messageText, nextTurn, roleOf } from "./history-search.js";
import { ARCHIVE_LOCK } from "./postgres-history-archive.js";

/** What an import copied. */
export interface ArchiveImport {
  threads: number;
  messages: number;
  /** Threads left alone because Postgres already has their archive. */
  skipped: number;
}

interface Row {
  seq: number;
  kind: "message" | "compaction";
  message_id: string | null;
  payload: string;
}

/**
 * Copies every thread's archive in the SQLite file `file` (when there is one) into the migrated
 * Postgres database behind `pool`.
 *
 * @example
 * const report = await importSqliteArchive(databaseFile(home, config.database), db.pool);
 */
export async function importSqliteArchive(file: string, pool: pg.Pool): Promise<ArchiveImport> {
  const report: ArchiveImport = { threads: 0, messages: 0, skipped: 0 };
  if (!existsSync(file)) return report;
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    if (!sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_archive'").get())
      return report;
    const threadIds = sqlite
      .prepare<[], { thread_id: string }>("SELECT DISTINCT thread_id FROM history_archive ORDER BY thread_id")
      .all()
      .map((row) => row.thread_id);
    const rowsOf = sqlite.prepare<[string], Row>(
      "SELECT seq, kind, message_id, payload FROM history_archive WHERE thread_id = ? ORDER BY seq",
    );
    for (const threadId of threadIds) {
      const rows = rowsOf.all(threadId);
      const copied = await copyThread(pool, threadId, rows);
      if (copied === null) report.skipped += 1;
      else {
        report.threads += 1;
        report.messages += copied;
      }
    }
    return report;
  } finally {
    sqlite.close();
  }
}

/** Copies one thread's rows; null when Postgres already has an archive for it. */
async function copyThread(pool: pg.Pool, threadId: string, rows: readonly Row[]): Promise<number | null> {
  const messages = rows.filter((row) => row.kind === "message");
  let turn = 0;
  const search = messages.map((row) => {
    const message = mapStoredMessagesToChatMessages([JSON.parse(row.payload)])[0]!;
    turn = nextTurn(turn, message);
    return { seq: row.seq, turn, role: roleOf(message), text: messageText(message).replace(/\u0000/g, "") };
  });
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [ARCHIVE_LOCK, threadId]);
    if (
      ((await client.query("SELECT 1 FROM history_archive WHERE thread_id = $1 LIMIT 1", [threadId])).rowCount ?? 0) > 0
    ) {
      await client.query("ROLLBACK");
      return null;
    }
    await client.query(
      `INSERT INTO history_archive (thread_id, seq, kind, message_id, payload)
       SELECT $1, seq, kind, message_id, payload FROM unnest($2::int[], $3::text[], $4::text[], $5::text[]) AS row(seq, kind, message_id, payload)`,
      [
        threadId,
        rows.map((row) => row.seq),
        rows.map((row) => row.kind),
        rows.map((row) => row.message_id),
        rows.map((row) => row.payload),
      ],
    );
    await client.query(
      `INSERT INTO history_search (thread_id, seq, turn, role, text)
       SELECT $1, seq, turn, role, text FROM unnest($2::int[], $3::int[], $4::text[], $5::text[]) AS row(seq, turn, role, text)`,
      [
        threadId,
        search.map((row) => row.seq),
        search.map((row) => row.turn),
        search.map((row) => row.role),
        search.map((row) => row.text),
      ],
    );
    await client.query("COMMIT");
    return messages.length;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
