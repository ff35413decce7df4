/**
 * Full-text search over a thread's archived (compacted) messages, so the agent can recall a detail
 * the summary dropped instead of guessing or asking again (`search_history`).
 *
 * A plain table holds each archived message's text with its thread, turn and role; an FTS5 index
 * (external content, porter stemming) sits beside it in the same SQLite file as the archive, and is
 * written in the archive's own transaction. Archives written before the index existed are indexed
 * once, when the index is created.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import type Database from "better-sqlite3";

/** One matching passage. */
export interface HistoryHit {
  /** The message's number in the thread's archive: `history_read` reads from it. */
  seq: number;
  /** The user turn the message belongs to (1 = the thread's first user message). */
  turn: number;
  role: "user" | "assistant" | "tool" | "system";
  /** The message's text around the match, bounded. */
  passage: string;
}

/** The search index of the archive. */
export interface HistorySearchIndex {
  /** Indexes one archived message (called inside the archive's append transaction). */
  add(threadId: string, seq: number, message: BaseMessage): void;
  /** Best matches first; [] when nothing matches. `query` must already be valid (see {@link ftsQuery}). */
  search(threadId: string, query: string, limit: number): HistoryHit[];
  /** Whether the thread has anything archived. */
  has(threadId: string): boolean;
  delete(threadId: string): void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS history_search (
  id INTEGER PRIMARY KEY,
  thread_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  turn INTEGER NOT NULL,
  role TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS history_search_thread ON history_search (thread_id, seq);
CREATE VIRTUAL TABLE IF NOT EXISTS history_fts USING fts5(text, content='history_search', content_rowid='id', tokenize='porter unicode61');
`;

/** Characters of one passage. */
export const PASSAGE_CHARS = 600;

const ROLES: Record<string, HistoryHit["role"]> = { human: "user", ai: "assistant", tool: "tool", system: "system" };

/** The role a hit shows for `message`. */
export function roleOf(message: BaseMessage): HistoryHit["role"] {
  return ROLES[message.getType()] ?? "system";
}

/**
 * The turn of the next archived message after one in turn `previous` (0 for a thread's first): a
 * visible user message starts a new turn; anything else belongs to the current one.
 */
export function nextTurn(previous: number, message: BaseMessage): number {
  return roleOf(message) === "user" && !message.additional_kwargs?.hide_from_ui ? previous + 1 : Math.max(previous, 1);
}

/** The searchable text of a message: its text parts and, for a tool call, the call's name and arguments. */
export function messageText(message: BaseMessage): string {
  const content =
    typeof message.content === "string"
      ? message.content
      : message.content
          .map((part) =>
            typeof part === "string"
              ? part
              : part.type === "text"
                ? String((part as { text?: unknown }).text ?? "")
                : "",
          )
          .join("\n");
  const calls = (message as { tool_calls?: { name: string; args: unknown }[] }).tool_calls ?? [];
  return [content, ...calls.map((call) => `${call.name} ${JSON.stringify(call.args)}`)].filter(Boolean).join("\n");
}

/** The distinct words of a free-text query (letters and digits, lower-cased), at most 32. */
export function queryWords(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, 32);
}

/**
 * Turns free text into an FTS5 query: its words, each quoted, any of them matching (bm25 ranks the
 * passages with more and rarer words first). Null when the text has no word.
 */
export function ftsQuery(text: string): string | null {
  const words = queryWords(text);
  return words.length === 0 ? null : words.map((word) => `"${word}"`).join(" OR ");
}

/**
 * Opens (creating if needed, and indexing an existing archive once) the search index in `db`. A
 * read-only database without the index searches nothing.
 */
export function openHistorySearch(db: Database.Database): HistorySearchIndex {
  const exists = Boolean(
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_search'").get(),
  );
  if (!exists && db.readonly) return { add: () => {}, search: () => [], has: () => false, delete: () => {} };
  if (!exists) db.exec(SCHEMA);
  const lastTurn = db.prepare<[string], { turn: number }>(
    "SELECT turn FROM history_search WHERE thread_id = ? ORDER BY seq DESC LIMIT 1",
  );
  const insert = db.prepare("INSERT INTO history_search (thread_id, seq, turn, role, text) VALUES (?, ?, ?, ?, ?)");
  const insertFts = db.prepare("INSERT INTO history_fts (rowid, text) VALUES (?, ?)");
  const find = db.prepare<
    [string, string, number],
    { seq: number; turn: number; role: HistoryHit["role"]; text: string; passage: string }
  >(
    `SELECT s.seq, s.turn, s.role, s.text, snippet(history_fts, 0, '', '', ' … ', 64) AS passage
     FROM history_fts JOIN history_search s ON s.id = history_fts.rowid
     WHERE history_fts MATCH ? AND s.thread_id = ? ORDER BY bm25(history_fts) LIMIT ?`,
  );
  const any = db.prepare("SELECT 1 FROM history_search WHERE thread_id = ? LIMIT 1");
  const rows = db.prepare<[string], { id: number; text: string }>(
    "SELECT id, text FROM history_search WHERE thread_id = ?",
  );
  const deleteFts = db.prepare("INSERT INTO history_fts (history_fts, rowid, text) VALUES ('delete', ?, ?)");
  const deleteRows = db.prepare("DELETE FROM history_search WHERE thread_id = ?");

  const add = (threadId: string, seq: number, message: BaseMessage) => {
    const text = messageText(message);
    const role = roleOf(message);
    const turn = nextTurn(lastTurn.get(threadId)?.turn ?? 0, message);
    const id = insert.run(threadId, seq, turn, role, text).lastInsertRowid;
    if (text) insertFts.run(id, text);
  };

  if (!exists) {
    // An archive written before the index existed: index it once, in order.
    const archived = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_archive'").get()
      ? (db
          .prepare("SELECT thread_id, seq, payload FROM history_archive WHERE kind = 'message' ORDER BY thread_id, seq")
          .all() as { thread_id: string; seq: number; payload: string }[])
      : [];
    db.transaction(() => {
      for (const row of archived)
        add(row.thread_id, row.seq, mapStoredMessagesToChatMessages([JSON.parse(row.payload)])[0]!);
    })();
  }

  return {
    add,
    search(threadId, query, limit) {
      return find.all(query, threadId, limit).map((row) => ({
        seq: row.seq,
        turn: row.turn,
        role: row.role,
        passage: (row.text.length <= PASSAGE_CHARS ? row.text : row.passage).slice(0, PASSAGE_CHARS),
      }));
    },
    has: (threadId) => Boolean(any.get(threadId)),
    delete: db.transaction((threadId: string) => {
      for (const row of rows.all(threadId)) if (row.text) deleteFts.run(row.id, row.text);
      deleteRows.run(threadId);
    }),
  };
}
