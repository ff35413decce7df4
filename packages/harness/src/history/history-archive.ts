/**
 * The full-history archive: every message compaction removes from a thread, kept in order.
 *
 * Summarization shrinks the checkpointed `messages` to a summary plus a short tail; users of every
 * harness that did this in place lost their transcripts (deer-flow#1393, #2012). Summarization appends
 * the messages here before it removes them, so the whole conversation can still be shown
 * (`deerflow history --thread ID`). The table lives in the checkpointer's SQLite file; both connections
 * use WAL, so they can write side by side. On Postgres (`database.backend: postgres`) the archive is the
 * asynchronous `createPostgresHistoryArchive`; every caller awaits either through {@link AsyncHistoryArchive}.
 */
import {
  type BaseMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
} from "@langchain/core/messages";
import Database from "better-sqlite3";
import { ftsQuery, type HistoryHit, openHistorySearch } from "./history-search.js";

/** What summarization records with each batch of archived messages. */
export interface CompactionInfo {
  /** ISO time of the compaction. */
  compactedAt: string;
  /** The summary that replaced the messages. */
  summary: string;
}

/** One archived message, or the marker of a compaction that followed the messages before it. */
export type HistoryEntry =
  | { kind: "message"; seq: number; message: BaseMessage }
  | { kind: "compaction"; seq: number; compactedAt: string; summary: string; messageCount: number };

/** One archived message with its number and user turn, as `history_read` shows it. */
export interface ArchivedMessage {
  seq: number;
  /** The user turn (1 = the thread's first user message); null in an archive without the search index. */
  turn: number | null;
  message: BaseMessage;
}

/** Per-thread archive of compacted messages. */
export interface HistoryArchive {
  /**
   * Appends `messages` (in order) and a compaction marker after them, in one transaction. Messages whose
   * id is already archived for the thread are skipped; when none is new, no marker is written. Returns
   * how many messages were added.
   */
  append(threadId: string, messages: readonly BaseMessage[], info: CompactionInfo): number;
  /** Every entry of the thread in order, or [] for an unknown thread. */
  read(threadId: string): HistoryEntry[];
  /**
   * The best-matching archived passages for free-text `query` (their words, any order), best first.
   * [] when nothing matches or the query has no word.
   */
  search(threadId: string, query: string, limit: number): HistoryHit[];
  /** The archived messages numbered `from` to `to` (inclusive), in order; markers are left out. */
  readMessages(threadId: string, from: number, to: number): ArchivedMessage[];
  /** Whether the thread has archived messages (has been compacted). */
  hasArchive(threadId: string): boolean;
  /** Removes a thread's archived messages (`deerflow threads delete`). */
  delete(threadId: string): void;
  close(): void;
}

/**
 * The archive with every answer a promise: the Postgres archive, and the SQLite one through
 * {@link asyncArchive}. Summarization, `search_history`, the harness's `history()`, the CLI and the
 * server use this shape, so one code path serves both backends.
 */
export interface AsyncHistoryArchive {
  append(threadId: string, messages: readonly BaseMessage[], info: CompactionInfo): Promise<number>;
  read(threadId: string): Promise<HistoryEntry[]>;
  search(threadId: string, query: string, limit: number): Promise<HistoryHit[]>;
  readMessages(threadId: string, from: number, to: number): Promise<ArchivedMessage[]>;
  hasArchive(threadId: string): Promise<boolean>;
  delete(threadId: string): Promise<void>;
  close(): Promise<void>;
}

/** Either archive: callers await every answer, so a synchronous one fits too. */
export type AnyHistoryArchive = HistoryArchive | AsyncHistoryArchive;

/**
 * The SQLite archive behind promises (its work stays synchronous; errors become rejections).
 *
 * @example
 * const archive = asyncArchive(createHistoryArchive(store.file));
 * const entries = await archive.read(threadId);
 */
export function asyncArchive(archive: HistoryArchive): AsyncHistoryArchive {
  return {
    append: async (threadId, messages, info) => archive.append(threadId, messages, info),
    read: async (threadId) => archive.read(threadId),
    search: async (threadId, query, limit) => archive.search(threadId, query, limit),
    readMessages: async (threadId, from, to) => archive.readMessages(threadId, from, to),
    hasArchive: async (threadId) => archive.hasArchive(threadId),
    delete: async (threadId) => archive.delete(threadId),
    close: async () => archive.close(),
  };
}

interface Row {
  seq: number;
  kind: "message" | "compaction";
  payload: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS history_archive (
  thread_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('message', 'compaction')),
  message_id TEXT,
  payload TEXT NOT NULL,
  PRIMARY KEY (thread_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS history_archive_message_id ON history_archive (thread_id, message_id) WHERE message_id IS NOT NULL;
`;

/**
 * Opens (creating if needed) the archive table in the SQLite file at `dbPath`, or reads it through an
 * open database (a read-only one is only read: an archive that was never written reads as empty).
 *
 * @example
 * const archive = createHistoryArchive(path.join(home, "checkpoints.sqlite"));
 * for (const entry of archive.read(threadId)) ...
 */
export function createHistoryArchive(dbPath: string | Database.Database): HistoryArchive {
  const owned = typeof dbPath === "string";
  const db = owned ? new Database(dbPath) : dbPath;
  if (owned) {
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
  }
  const exists = () =>
    Boolean(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_archive'").get());
  if (db.readonly && !exists()) {
    return {
      append: () => 0,
      read: () => [],
      search: () => [],
      readMessages: () => [],
      hasArchive: () => false,
      delete: () => {},
      close: () => {},
    };
  }
  if (!db.readonly) db.exec(SCHEMA);
  const search = openHistorySearch(db);
  const nextSeq = db.prepare<[string], { next: number }>(
    "SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM history_archive WHERE thread_id = ?",
  );
  const insert = db.prepare(
    "INSERT OR IGNORE INTO history_archive (thread_id, seq, kind, message_id, payload) VALUES (?, ?, ?, ?, ?)",
  );
  const select = db.prepare<[string], Row>(
    "SELECT seq, kind, payload FROM history_archive WHERE thread_id = ? ORDER BY seq",
  );
  // The turn lives in the search index; a read-only archive written before the index has none.
  const indexed = Boolean(
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_search'").get(),
  );
  const selectRange = db.prepare<[string, number, number], { seq: number; turn: number | null; payload: string }>(
    `SELECT a.seq, ${indexed ? "s.turn" : "NULL"} AS turn, a.payload FROM history_archive a
     ${indexed ? "LEFT JOIN history_search s ON s.thread_id = a.thread_id AND s.seq = a.seq" : ""}
     WHERE a.thread_id = ? AND a.kind = 'message' AND a.seq BETWEEN ? AND ? ORDER BY a.seq`,
  );

  const append = db.transaction((threadId: string, messages: readonly BaseMessage[], info: CompactionInfo): number => {
    let seq = nextSeq.get(threadId)!.next;
    let added = 0;
    const stored = mapChatMessagesToStoredMessages([...messages]);
    stored.forEach((payload, index) => {
      if (insert.run(threadId, seq, "message", messages[index]!.id ?? null, JSON.stringify(payload)).changes === 0)
        return;
      search.add(threadId, seq, messages[index]!);
      seq += 1;
      added += 1;
    });
    if (added > 0) insert.run(threadId, seq, "compaction", null, JSON.stringify({ ...info, messageCount: added }));
    return added;
  });

  return {
    append: (threadId, messages, info) => append(threadId, messages, info),
    read(threadId) {
      return select.all(threadId).map((row): HistoryEntry => {
        const payload = JSON.parse(row.payload);
        if (row.kind === "compaction") return { kind: "compaction", seq: row.seq, ...payload };
        return { kind: "message", seq: row.seq, message: mapStoredMessagesToChatMessages([payload])[0]! };
      });
    },
    readMessages(threadId, from, to) {
      return selectRange.all(threadId, from, to).map((row) => ({
        seq: row.seq,
        turn: row.turn,
        message: mapStoredMessagesToChatMessages([JSON.parse(row.payload)])[0]!,
      }));
    },
    search(threadId, query, limit) {
      const fts = ftsQuery(query);
      return fts === null ? [] : search.search(threadId, fts, limit);
    },
    hasArchive: (threadId) => search.has(threadId),
    delete(threadId) {
      db.prepare("DELETE FROM history_archive WHERE thread_id = ?").run(threadId);
      search.delete(threadId);
    },
    close: () => {
      if (owned) db.close();
    },
  };
}
