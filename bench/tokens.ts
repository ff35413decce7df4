/**
 * `npm run bench -- tokens`: model tokens per turn of (a) and (d) over one long thread, split by what
 * each call was for (agent, summarizer, title, memory), and how stable the agent's request prefix is.
 *
 * (a) runs with titles and memory on, as they are by default (memory flushed after each turn, as for a
 * user who pauses longer than its 30 s debounce); (d) has neither. Input tokens count the messages and
 * the bound tools' schemas with the harness's own counter (`countTokens`; for the bench model, which has
 * no known encoding, about one token per 4 ASCII characters); output tokens count the reply.
 *
 * Prefix stability: for consecutive agent requests, the bytes the new request shares from the start
 * with the previous one (system prompt and messages, in order, as a provider receives them), divided by
 * the previous request's length. Providers cache a request's prefix, so what changes early costs the
 * whole rest of the request again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildVariant, type ModelRequest, type Recorder, type RequestKind } from "./scenario.js";

const KINDS: RequestKind[] = ["agent", "summarizer", "title", "memory"];

export interface TokenRun {
  turns: number;
  /** Per kind: calls, input and output tokens over the whole run. */
  byKind: Record<RequestKind, { calls: number; input: number; output: number; tools: number; system: number }>;
  /** Prefix stability of each consecutive pair of agent requests (0..1), and whether the pair spans a turn. */
  pairs: { ratio: number; acrossTurns: boolean; where: string }[];
  /**
   * Agent input tokens a provider's prefix cache could not serve, estimated: of each request, the share
   * of its bytes after the prefix it shares with the previous request (tool schemas, sent identically
   * before the system prompt on every call, counted as served).
   */
  uncachedAgentInput: number;
}

/** Shared bytes from the start of two requests, divided by the first one's length. */
function prefixShare(previous: string[], next: string[]): { ratio: number; newShare: number; where: string } {
  const a = Buffer.from(previous.join("\n"));
  const b = Buffer.from(next.join("\n"));
  const n = Math.min(a.length, b.length);
  let common = 0;
  while (common < n && a[common] === b[common]) common++;
  const newShare = common / b.length;
  if (common === a.length) return { ratio: 1, newShare, where: "" };
  // Where they part: the message index and role in the previous request, and a few bytes of each side.
  let offset = 0;
  let index = 0;
  while (index < previous.length - 1 && offset + Buffer.byteLength(previous[index]!) + 1 <= common) {
    offset += Buffer.byteLength(previous[index]!) + 1;
    index++;
  }
  const role = (JSON.parse(previous[index]!) as [string])[0];
  const at = common - offset;
  const snippet = (side: Buffer) => JSON.stringify(side.subarray(common - Math.min(at, 40), common + 40).toString());
  return {
    ratio: common / a.length,
    newShare,
    where: `message ${index} (${role}), byte ${at} of it: ${snippet(a)} -> ${snippet(b)}`,
  };
}

export function summarize(requests: ModelRequest[], turnOfRequest: number[], turns: number): TokenRun {
  const byKind = Object.fromEntries(
    KINDS.map((k) => [k, { calls: 0, input: 0, output: 0, tools: 0, system: 0 }]),
  ) as TokenRun["byKind"];
  for (const r of requests) {
    byKind[r.kind].calls++;
    byKind[r.kind].input += r.input;
    byKind[r.kind].output += r.output;
    byKind[r.kind].tools += r.toolTokens;
    byKind[r.kind].system += r.systemTokens;
  }
  const pairs: TokenRun["pairs"] = [];
  let last: { serialized: string[]; turn: number } | undefined;
  let uncachedAgentInput = 0;
  requests.forEach((r, i) => {
    if (r.kind !== "agent") return;
    if (last) {
      const { ratio, newShare, where } = prefixShare(last.serialized, r.serialized!);
      pairs.push({ ratio, where, acrossTurns: last.turn !== turnOfRequest[i] });
      uncachedAgentInput += (r.input - r.toolTokens) * (1 - newShare);
    } else uncachedAgentInput += r.input;
    last = { serialized: r.serialized!, turn: turnOfRequest[i]! };
  });
  return { turns, byKind, pairs, uncachedAgentInput };
}

/** The variants measured: (a); (d) as a TypeScript user would set it up; (d) with (a)'s tools and system prompt; (d) counting with the harness's counter. */
export type TokenRuns = Record<"a" | "d" | "dTools" | "dCounter", TokenRun>;

/**
 * Plays `turns` turns of (a) (titles and memory on), then of three (d)s one after the other: as is;
 * with the same tool schemas and system prompt as (a) (recorded from (a)'s first agent call), so the
 * fixed part of each call is the same on both; and with its trigger counting through the harness's
 * `countTokens` (3 tokens of framing per message, which langchain's estimate leaves out).
 */
export async function measureTokens(turns: number, log: (line: string) => void): Promise<TokenRuns> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "deerflow-tokens-"));
  try {
    const out: Partial<TokenRuns> = {};
    let aTools: { tools: NonNullable<Recorder["agentTools"]>; systemPrompt: string } | undefined;
    for (const [key, name] of [
      ["a", "deerflow"],
      ["d", "summarizing"],
      ["dTools", "summarizing"],
      ["dCounter", "summarizing"],
    ] as const) {
      const variant = await buildVariant(name, path.join(scratch, key), {
        recordRequests: true,
        titleAndMemory: true,
        ...(key === "dTools" ? { peerTools: aTools } : {}),
        ...(key === "dCounter" ? { harnessCounter: true } : {}),
      });
      const turnOfRequest: number[] = [];
      try {
        for (let turn = 1; turn <= turns; turn++) {
          await variant.turn(turn);
          while (turnOfRequest.length < variant.recorder.requests!.length) turnOfRequest.push(turn);
          if (turn % 50 === 0) log(`  tokens (${key}): ${turn}/${turns} turns`);
        }
      } finally {
        await variant.close();
      }
      if (key === "a") {
        const { agentTools, agentSystemPrompt } = variant.recorder;
        if (!agentTools || agentSystemPrompt === undefined)
          throw new Error("(a) made no agent call with a system prompt.");
        aTools = { tools: agentTools, systemPrompt: agentSystemPrompt };
      }
      out[key] = summarize(variant.recorder.requests!, turnOfRequest, turns);
    }
    return out as TokenRuns;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const mean = (values: number[]) => (values.length ? values.reduce((x, y) => x + y, 0) / values.length : Number.NaN);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** Total tokens (input + output) per turn of a run. */
export const tokensPerTurn = (run: TokenRun) =>
  KINDS.reduce((sum, k) => sum + run.byKind[k].input + run.byKind[k].output, 0) / run.turns;

/** The tables: tokens per turn by kind, the targets, and where (a)'s prefixes part most often. */
export function tokenTables(runs: TokenRuns, recallAt5: number | null): string {
  const { a, d, dTools, dCounter } = runs;
  const peers = [d, dTools, dCounter];
  const cell = (run: TokenRun, k: RequestKind) =>
    `${(run.byKind[k].input / run.turns).toFixed(0)} / ${(run.byKind[k].output / run.turns).toFixed(1)} (${run.byKind[k].calls} calls)`;
  const stability = (run: TokenRun, filter: (p: TokenRun["pairs"][number]) => boolean = () => true) =>
    mean(run.pairs.filter(filter).map((p) => p.ratio));
  const split = (run: TokenRun) => {
    const { input, tools, system } = run.byKind.agent;
    return [tools, system, input - tools - system].map((x) => (x / run.turns).toFixed(0)).join(" / ");
  };
  const rows = [
    `| Model tokens per turn, input / output (${a.turns} turns) | (a) DeerFlow.ts, titles and memory on | (d) createAgent + summarization | (d) with (a)'s tools and system prompt | (d) counting with the harness's counter |`,
    "|---|---|---|---|---|",
    ...KINDS.map((k) => `| ${k} calls | ${[a, ...peers].map((run) => cell(run, k)).join(" | ")} |`),
    `| of the agent calls' input: tool schemas / system prompt / the rest (conversation) | ${[a, ...peers].map(split).join(" | ")} |`,
    `| of the agent calls' input: not served by a prefix cache (estimate) | ${[a, ...peers].map((run) => (run.uncachedAgentInput / run.turns).toFixed(0)).join(" | ")} |`,
    `| total (input + output) | ${tokensPerTurn(a).toFixed(0)} | ${peers.map((run) => `${tokensPerTurn(run).toFixed(0)} ((a) is ${(tokensPerTurn(a) / tokensPerTurn(run)).toFixed(2)}×)`).join(" | ")} |`,
    `| agent requests' prefix stability, average (all / within a turn / across turns) | ${[a, ...peers].map((run) => `${pct(stability(run))} / ${pct(stability(run, (p) => !p.acrossTurns))} / ${pct(stability(run, (p) => p.acrossTurns))}`).join(" | ")} |`,
    `| agent request pairs below 90% stable | ${[a, ...peers].map((run) => `${run.pairs.filter((p) => p.ratio < 0.9).length} of ${run.pairs.length}`).join(" | ")} |`,
  ];
  const mark = (ok: boolean) => (ok ? "met" : "**missed**");
  const targets = [
    "| Target | Figure |  |",
    "|---|---|---|",
    `| Total tokens per turn (a) ≤ 0.8× (d) | ${(tokensPerTurn(a) / tokensPerTurn(d)).toFixed(2)}× | ${mark(tokensPerTurn(a) <= 0.8 * tokensPerTurn(d))} |`,
    `| Total tokens per turn (a) ≤ 0.8× (d) with (a)'s tools and system prompt | ${(tokensPerTurn(a) / tokensPerTurn(dTools)).toFixed(2)}× | ${mark(tokensPerTurn(a) <= 0.8 * tokensPerTurn(dTools))} |`,
    `| Summarizer calls (a) ≤ (d) | ${a.byKind.summarizer.calls} vs ${d.byKind.summarizer.calls} | ${mark(a.byKind.summarizer.calls <= d.byKind.summarizer.calls)} |`,
    `| Summarizer calls (a) ≤ (d) counting as (a) does | ${a.byKind.summarizer.calls} vs ${dCounter.byKind.summarizer.calls} | ${mark(a.byKind.summarizer.calls <= dCounter.byKind.summarizer.calls)} |`,
    `| search_history recall@5 ≥ 90% | ${recallAt5 === null ? "see the recall table" : pct(recallAt5)} | ${recallAt5 === null ? "" : mark(recallAt5 >= 0.9)} |`,
    `| (a) prefix stability ≥ 90% average | ${pct(stability(a))} | ${mark(stability(a) >= 0.9)} |`,
  ];
  // Where (a)'s prefixes part: the commonest places, by message and role.
  const counts = new Map<string, { n: number; example: string }>();
  for (const p of a.pairs.filter((p) => p.ratio < 1)) {
    const key = p.where.slice(0, p.where.indexOf(", byte"));
    const entry = counts.get(key) ?? { n: 0, example: p.where };
    entry.n++;
    counts.set(key, entry);
  }
  const parting = [...counts.entries()].sort((x, y) => y[1].n - x[1].n).slice(0, 5);
  return [
    rows.join("\n"),
    "",
    targets.join("\n"),
    "",
    `Where (a)'s consecutive agent requests part (the ${parting.length} commonest places, of ${a.pairs.filter((p) => p.ratio < 1).length} pairs that differ before the previous request's end):`,
    "",
    ...parting.map(([, { n, example }]) => `- ${n}×: ${example.replaceAll("|", "\\|")}`),
  ].join("\n");
}
