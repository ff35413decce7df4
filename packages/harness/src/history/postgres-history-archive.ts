/**
 * The full-history archive in Postgres (`database.backend: postgres`), so every process of a service
 * (servers on several machines, a CLI beside them) reads, searches and deletes the same compacted
 * messages, with nothing of a thread left in a SQLite file on one machine.
 *
 * Same rows as the SQLite archive: `history_archive` (migration 1) keeps each message and compaction
 * marker in order, `history_search` (migration 2) keeps each message's text, turn and role with a
 * generated `tsvector` under a GIN index. An append writes both in one transaction under a per-thread
 * advisory lock, so two writers never take the same sequence number. `search_history` asks
 * `websearch_to_tsquery` for any of the query's words and ranks with `ts_rank` (more matching words
 * first, shorter passages a little ahead), as FTS5's bm25 does for SQLite.
 */
import {
  type BaseMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
} from "@langchain/core/messages";
import type pg from "pg";
import { inTransaction } from "../storage/postgres-database.js";
import type { AsyncHistoryArchive, HistoryEntry } from "./history-archive.js";
import { type HistoryHit, messageText, nextTurn, PASSAGE_CHARS, queryWords, roleOf } from "./history-search.js";

/** First key of the archive's per-thread advisory locks ("DFHA" in ASCII); the second is the thread's hash. */
export const ARCHIVE_LOCK = 0x44464841;

/** Postgres's "relation does not exist": a database not yet migrated to the archive's tables. */
const UNDEFINED_TABLE = "42P01";

/** Words of a headline around the matches of a long message (FTS5's snippet uses 64 tokens). */
const HEADLINE = 'StartSel="", StopSel="", MaxWords=64, MinWords=24, MaxFragments=2, FragmentDelimiter=" … "';

/** Postgres text cannot hold NUL characters; the search text drops them (the stored message keeps them). */
const withoutNul = (text: string) => text.replace(/\u0000/g, "");

/** `fallback` when the tables are not there yet (a reader on a database an older build migrated). */
async function orWhenUnmigrated<T>(query: Promise<T>, fallback: T): Promise<T> {
  try {
    return await query;
  } catch (error) {
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return fallback;
    throw error;
  }
}

/**
 * The archive in the `history_archive` and `history_search` tables of a migrated DeerFlow.ts database.
 * The pool belongs to the caller: `close()` leaves it open.
 *
 * @example
 * const archive = createPostgresHistoryArchive(harness.setup.postgres.pool);
 * const hits = await archive.search("t1", "staging password", 5);
 */
export function createPostgresHistoryArchive(pool: pg.Pool): AsyncHistoryArchive {
  return {
    append: (threadId, messages, info) =>
      inTransaction(pool, async (client) => {
        await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [ARCHIVE_LOCK, threadId]);
        const ids = messages.flatMap((message) => (message.id ? [message.id] : []));
        const archived = new Set(
          ids.length === 0
            ? []
            : (
                await client.query<{ message_id: string }>(
                  "SELECT message_id FROM history_archive WHERE thread_id = $1 AND message_id = ANY($2)",
                  [threadId, ids],
                )
              ).rows.map((row) => row.message_id),
        );
        const fresh: BaseMessage[] = [];
        for (const message of messages) {
          if (message.id && archived.has(message.id)) continue;
          if (message.id) archived.add(message.id);
          fresh.push(message);
        }
        if (fresh.length === 0) return 0;

        const last = await client.query<{ seq: number; turn: number | null }>(
          `SELECT COALESCE((SELECT MAX(seq) FROM history_archive WHERE thread_id = $1), 0) AS seq,
                  (SELECT turn FROM history_search WHERE thread_id = $1 ORDER BY seq DESC LIMIT 1) AS turn`,
          [threadId],
        );
        const first = Number(last.rows[0]!.seq) + 1;
        let turn = last.rows[0]!.turn ?? 0;
        const seqs = fresh.map((_, index) => first + index);
        const turns = fresh.map((message) => (turn = nextTurn(turn, message)));
        const payloads = mapChatMessagesToStoredMessages(fresh).map((stored) => JSON.stringify(stored));
        const markerSeq = first + fresh.length;
        await client.query(
          `INSERT INTO history_archive (thread_id, seq, kind, message_id, payload)
           SELECT $1, seq, kind, message_id, payload FROM unnest($2::int[], $3::text[], $4::text[], $5::text[]) AS row(seq, kind, message_id, payload)`,
          [
            threadId,
            [...seqs, markerSeq],
            [...fresh.map(() => "message"), "compaction"],
            [...fresh.map((message) => message.id ?? null), null],
            [...payloads, JSON.stringify({ ...info, messageCount: fresh.length })],
          ],
        );
        await client.query(
          `INSERT INTO history_search (thread_id, seq, turn, role, text)
           SELECT $1, seq, turn, role, text FROM unnest($2::int[], $3::int[], $4::text[], $5::text[]) AS row(seq, turn, role, text)`,
          [threadId, seqs, turns, fresh.map(roleOf), fresh.map((message) => withoutNul(messageText(message)))],
        );
        return fresh.length;
      }),

    async read(threadId) {
      const rows = await orWhenUnmigrated(
        pool
          .query<{ seq: number; kind: "message" | "compaction"; payload: string }>(
            "SELECT seq, kind, payload FROM history_archive WHERE thread_id = $1 ORDER BY seq",
            [threadId],
          )
          .then((result) => result.rows),
        [],
      );
      return rows.map((row): HistoryEntry => {
        const payload = JSON.parse(row.payload);
        if (row.kind === "compaction") return { kind: "compaction", seq: row.seq, ...payload };
        return { kind: "message", seq: row.seq, message: mapStoredMessagesToChatMessages([payload])[0]! };
      });
    },

    async readMessages(threadId, from, to) {
      const rows = await orWhenUnmigrated(
        pool
          .query<{ seq: number; turn: number | null; payload: string }>(
            `SELECT a.seq, s.turn, a.payload FROM history_archive a
             LEFT JOIN history_search s ON s.thread_id = a.thread_id AND s.seq = a.seq
             WHERE a.thread_id = $1 AND a.kind = 'message' AND a.seq BETWEEN $2 AND $3 ORDER BY a.seq`,
            [threadId, from, to],
          )
          .then((result) => result.rows),
        [],
      );
      return rows.map((row) => ({
        seq: Number(row.seq),
        turn: row.turn === null ? null : Number(row.turn),
        message: mapStoredMessagesToChatMessages([JSON.parse(row.payload)])[0]!,
      }));
    },

    async search(threadId, query, limit) {
      const words = queryWords(query);
      if (words.length === 0) return [];
      // Any of the words (" or " is websearch syntax); stop words drop out, and a query of only stop words matches nothing.
      const rows = await orWhenUnmigrated(
        pool
          .query<{ seq: number; turn: number; role: HistoryHit["role"]; text: string; headline: string | null }>(
            `WITH q AS (SELECT websearch_to_tsquery('english', $2) AS q),
             best AS (
               SELECT s.seq, s.turn, s.role, s.text, ts_rank(s.tsv, q.q, 1) AS rank
               FROM history_search s, q WHERE s.thread_id = $1 AND s.tsv @@ q.q
               ORDER BY rank DESC, s.seq LIMIT $3
             )
             SELECT seq, turn, role, text,
                    CASE WHEN length(text) > $4 THEN ts_headline('english', left(text, 100000), (SELECT q FROM q), '${HEADLINE}') END AS headline
             FROM best ORDER BY rank DESC, seq`,
            [threadId, words.join(" or "), limit, PASSAGE_CHARS],
          )
          .then((result) => result.rows),
        [],
      );
      return rows.map((row) => ({
        seq: Number(row.seq),
        turn: row.turn,
        role: row.role,
        passage: (row.headline ?? row.text).slice(0, PASSAGE_CHARS),
      }));
    },

    hasArchive: (threadId) =>
      orWhenUnmigrated(
        pool
          .query("SELECT 1 FROM history_search WHERE thread_id = $1 LIMIT 1", [threadId])
          .then((result) => (result.rowCount ?? 0) > 0),
        false,
      ),

    delete: (threadId) =>
      orWhenUnmigrated(
        inTransaction(pool, async (client) => {
          await client.query("DELETE FROM history_search WHERE thread_id = $1", [threadId]);
          await client.query("DELETE FROM history_archive WHERE thread_id = $1", [threadId]);
        }),
        undefined,
      ),

    close: async () => {},
  };
}
