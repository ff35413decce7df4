/**
 * `search_history`: the agent's way back into its own thread. Summaries keep the gist and lose the
 * details (a name, a number, a decision); rather than guess or ask the user again, the agent searches
 * the thread's archive (what compaction removed) and its live messages (what is not compacted yet) and
 * gets the best-matching passages with their role, and for archived ones their message number and turn.
 * Bounded in and out: a query of at most {@link MAX_QUERY_CHARS} characters, at most {@link MAX_RESULTS}
 * passages of bounded length.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { tool, type ToolRuntime } from "@langchain/core/tools";
import { z } from "zod";
import type { AnyHistoryArchive } from "../history/history-archive.js";
import type { HistoryHit } from "../history/history-search.js";
import { type RankedHit, queryTerms, rankHits, searchLiveMessages } from "../history/live-search.js";

export const SEARCH_HISTORY_TOOL_NAME = "search_history";
export const MAX_QUERY_CHARS = 500;
export const MAX_RESULTS = 5;

/**
 * The tool over `archive`, reading the thread from the run's `configurable.thread_id`.
 *
 * @example
 * tools.push(createSearchHistoryTool(archive));
 */
export function createSearchHistoryTool(archive: AnyHistoryArchive) {
  return tool(
    async ({ query, limit }: { query: string; limit?: number }, runtime: ToolRuntime) => {
      const threadId = runtime.configurable?.thread_id ?? runtime.config?.configurable?.thread_id;
      const text = query.trim();
      if (!text)
        return "Error: search_history needs a query: give the words you are looking for (a name, a number, a topic).";
      if (text.length > MAX_QUERY_CHARS)
        return `Error: the query is ${text.length} characters; search_history takes at most ${MAX_QUERY_CHARS}. Use a few distinctive words.`;
      const count = Math.min(MAX_RESULTS, Math.max(1, limit ?? MAX_RESULTS));
      let archived: HistoryHit[] | null = null;
      try {
        if (typeof threadId === "string" && (await archive.hasArchive(threadId)))
          archived = await archive.search(threadId, text, count);
      } catch (error) {
        // The Postgres archive can be unreachable for a while; the model gets a line, not a failed run.
        return `Error: the history archive could not be searched (${(error as Error).message.split("\n")[0]}). Go on without it, or try again later.`;
      }
      const terms = queryTerms(text);
      const live = searchLiveMessages(
        (runtime.state as { messages?: BaseMessage[] } | undefined)?.messages ?? [],
        terms,
      );
      const hits = rankHits(archived ?? [], live, terms, count);
      if (hits.length === 0 && archived === null)
        return "No earlier messages are archived for this thread: nothing has been compacted yet, and no message in the conversation matches those words.";
      if (hits.length === 0)
        return `No archived message matches "${text.slice(0, 80)}", nor does any message still in the conversation. Try other or fewer words.`;
      return hits.map((hit, index) => `[${index + 1}] ${where(hit)}:\n${hit.passage}`).join("\n\n");
    },
    {
      name: SEARCH_HISTORY_TOOL_NAME,
      description:
        "Search this thread's earlier messages, those compacted into the summary included. Use it to recall an exact detail " +
        "(a name, number, decision, file, error) instead of guessing or asking the user again. Returns the best-matching " +
        "passages with their role, and for compacted ones their message number and turn; history_read reads the messages around a number in full.",
      schema: z.object({
        query: z.string().describe("A few distinctive words to look for, e.g. 'database password decision'"),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_RESULTS)
          .optional()
          .describe(`How many passages (default and at most ${MAX_RESULTS})`),
      }),
    },
  );
}

/** How a passage is headed: an archived one by its number and turn, a live one as still in the conversation. */
function where(hit: RankedHit): string {
  return hit.live ? `in the conversation, ${hit.role}` : `message ${hit.seq}, turn ${hit.turn}, ${hit.role}`;
}
