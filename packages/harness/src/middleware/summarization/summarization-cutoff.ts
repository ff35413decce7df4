/**
 * Where compaction may cut a thread: never between an AI tool call and any of its results.
 *
 * A cut there leaves either a call whose result was summarized away or a result whose call was, and the
 * provider answers HTTP 400 on every later turn (langchain#34282, deepagents#270, langchainjs#9272). The
 * pairs come from `matchToolResults`, the same matching dangling-call repair uses, so parallel calls,
 * results separated by injected human messages, and ids reused across turns are all respected.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { matchToolResults } from "../../messages/tool-pairs.js";

/**
 * For each cut position `c` in `0..messages.length`, whether cutting there (summarize `[0, c)`, keep
 * `[c, end)`) would separate a tool call from one of its results.
 */
export function unsafeCuts(messages: readonly BaseMessage[]): boolean[] {
  // Difference array: a pair spanning [call, lastResult] blocks every cut in (call, lastResult].
  const delta = new Array<number>(messages.length + 2).fill(0);
  for (const [call, results] of matchToolResults(messages)) {
    const last = Math.max(...results.map((k) => k ?? -1));
    if (last <= call) continue;
    delta[call + 1]! += 1;
    delta[last + 1]! -= 1;
  }
  const blocked: boolean[] = [];
  let open = 0;
  for (let cut = 0; cut <= messages.length; cut += 1) {
    open += delta[cut]!;
    blocked.push(open > 0);
  }
  return blocked;
}

/**
 * Moves a proposed cut to a safe one: back to the nearest safe position (the pair stays whole in the kept
 * tail), or, when that would leave nothing to summarize, forward past the pair (one very long turn of
 * parallel calls). Returns 0 when no safe cut summarizes anything.
 *
 * @example
 * // [human, ai(call c1), tool(c1), ai] with a proposed cut at 2 (between the call and its result)
 * findSafeCutoff(messages, 2); // 1: the call and its result are both kept
 */
export function findSafeCutoff(messages: readonly BaseMessage[], target: number): number {
  if (target <= 0) return 0;
  const start = Math.min(target, messages.length);
  const blocked = unsafeCuts(messages);
  for (let cut = start; cut > 0; cut -= 1) if (!blocked[cut]) return cut;
  for (let cut = start + 1; cut <= messages.length; cut += 1) if (!blocked[cut]) return cut;
  return 0;
}
