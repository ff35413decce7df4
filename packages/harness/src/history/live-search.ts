/**
 * The part of `search_history` that looks at the thread's live messages: those not compacted yet, still
 * in the conversation. With a token trigger that measures only the messages, a thread can hold many
 * turns before its first compaction, and one search should find a detail wherever it is: in the
 * archive or still in the conversation.
 *
 * Both kinds of passage are ranked together by how many of the query's distinct words they hold (the
 * archive's own order breaks ties, then newest live message first), so the passage that answers a
 * question wins over ones that share a single common word with it.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { contentText } from "../messages/content.js";
import { type HistoryHit, PASSAGE_CHARS, roleOf } from "./history-search.js";

/** A passage of a live message. */
export interface LiveHit {
  role: HistoryHit["role"];
  passage: string;
}

/** One passage of either kind, as `search_history` lists them. */
export type RankedHit = ({ live: false } & HistoryHit) | ({ live: true } & LiveHit);

/** Words too common to tell passages apart. */
const STOP_WORDS = new Set(
  "a an and are as at be by did do does for from has have how i in is it of on or the this that to was we were what when where which who why with you your".split(
    " ",
  ),
);

/** The query's distinct words, lower-cased, without stop words. */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}_-]+/gu) ?? [];
  return [...new Set(words.filter((word) => !STOP_WORDS.has(word)))];
}

/** How many of `terms` occur in `text` (a term also matches inside a longer word: deadline, deadlines). */
export function termScore(text: string, terms: readonly string[]): number {
  const lower = text.toLowerCase();
  return terms.filter((term) => lower.includes(term)).length;
}

/** At most {@link PASSAGE_CHARS} of `text`: all of it when short enough, else a window around the first term found. */
function passageOf(text: string, terms: readonly string[]): string {
  if (text.length <= PASSAGE_CHARS) return text;
  const lower = text.toLowerCase();
  const found = terms.map((term) => lower.indexOf(term)).filter((index) => index >= 0);
  const at = found.length > 0 ? Math.min(...found) : 0;
  const start = Math.max(0, Math.min(at - PASSAGE_CHARS / 4, text.length - PASSAGE_CHARS));
  return text.slice(start, start + PASSAGE_CHARS);
}

/**
 * The live messages that match `terms`, newest first: user messages, answers and tool results, never
 * hidden ones (harness context) nor the latest user message (the request being answered, which holds
 * the question itself).
 */
export function searchLiveMessages(messages: readonly BaseMessage[], terms: readonly string[]): LiveHit[] {
  const latestUser = messages.findLastIndex((m) => m.getType() === "human" && !m.additional_kwargs?.hide_from_ui);
  const hits: LiveHit[] = [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    const type = message.getType();
    if (index === latestUser || message.additional_kwargs?.hide_from_ui || type === "system") continue;
    const text = contentText(message.content, "\n");
    if (termScore(text, terms) > 0) hits.push({ role: roleOf(message), passage: passageOf(text, terms) });
  }
  return hits;
}

/**
 * Archive hits and live hits in one list, best first, at most `limit`. A live message that was archived
 * too (a request kept through a compaction) is listed once, as the archived passage.
 */
export function rankHits(
  archived: readonly HistoryHit[],
  live: readonly LiveHit[],
  terms: readonly string[],
  limit: number,
): RankedHit[] {
  const fresh = live.filter((hit) => !archived.some((old) => old.role === hit.role && old.passage === hit.passage));
  const all: RankedHit[] = [
    ...archived.map((hit) => ({ ...hit, live: false as const })),
    ...fresh.map((hit) => ({ ...hit, live: true as const })),
  ];
  const score = new Map(all.map((hit) => [hit, termScore(hit.passage, terms)]));
  return all.sort((a, b) => score.get(b)! - score.get(a)!).slice(0, limit);
}
