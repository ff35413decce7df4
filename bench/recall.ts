/**
 * `npm run bench -- recall`: can the agent get back a detail that compaction removed?
 *
 * A 200-turn thread through DeerFlow.ts's lead agent, summarization as the benchmark configures it
 * (trigger 4000 tokens, keep 10 messages), with 50 facts planted in user messages spread over the
 * thread (a name, a number, a date...). Then 50 questions, one per fact. For each, is the answer in
 * (1) what the model is shown on the next request (system prompt, summary, kept messages), and
 * (2) the top 5 passages of one `search_history` call whose query is the question itself (the tool
 * searches the archive and the thread's live messages, as it does for the agent)?
 *
 * The model is scripted, so the summary is written by a deterministic stand-in: it keeps the newest
 * 1,000 characters of the user text it is asked to compress (a lossy, recency-biased summary). Figure
 * (1) therefore measures this stand-in, not a real model's summary; figure (2) does not depend on it.
 *
 * `npm run bench -- recall --postgres` plays the same thread with `database.backend: postgres` (a fresh
 * database on 127.0.0.1:5432 or DEERFLOW_TEST_DATABASE_URL), so figure (2) measures Postgres full-text
 * search instead of SQLite FTS5.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { createHarness, parseConfigText } from "../packages/harness/src/index.js";
import { ScriptedChatModel, testDatabase } from "../packages/harness/src/testing/index.js";
import { createSearchHistoryTool } from "../packages/harness/src/tools/search-history.js";

const TURNS = 200;
const AREAS = [
  "billing",
  "staging",
  "analytics",
  "mobile",
  "search",
  "auth",
  "payments",
  "reporting",
  "onboarding",
  "support",
];
const THINGS = [
  [
    "owner",
    (i: number) =>
      `${["Margarethe", "Oluwaseun", "Thibault", "Ingrid", "Kenji", "Priyanka", "Esteban", "Ludmila", "Caoimhe", "Bartholomew"][i % 10]} ${["Okafor", "Lindqvist", "Moreau", "Tanaka", "Haddad"][i % 5]}`,
  ],
  ["deadline", (i: number) => `${10 + (i % 18)} ${["March", "April", "May", "June", "July"][i % 5]}`],
  ["port", (i: number) => String(20000 + i * 137)],
  [
    "codename",
    (i: number) =>
      `${["Heron", "Quokka", "Marlin", "Ibex", "Kestrel", "Lynx", "Narwhal", "Ocelot", "Puffin", "Tapir"][i % 10]}-${100 + i}`,
  ],
  ["budget", (i: number) => `${(12 + i) * 1000} euros`],
] as const;

interface Fact {
  turn: number;
  subject: string;
  value: string;
}

/** 50 facts, one every 4 turns (turns 3, 7, ..., 199). */
function plantFacts(): Fact[] {
  const facts: Fact[] = [];
  AREAS.forEach((area, a) =>
    THINGS.forEach(([thing, value], t) => {
      const i = a * THINGS.length + t;
      facts.push({ turn: 3 + i * 4, subject: `${area} ${thing}`, value: value(i) });
    }),
  );
  return facts;
}

function userText(turn: number, fact: Fact | undefined): string {
  if (fact)
    return `Turn ${turn}: please remember this for later: the ${fact.subject} is ${fact.value}. Then carry on with the review.`;
  const area = AREAS[(turn * 7) % AREAS.length];
  return `Turn ${turn}: review the ${area} dashboards, check the logs for errors and summarize the open items briefly.`;
}

/** The summarizer stand-in: the newest 1,000 characters of the user lines it is given (and of the previous summary). */
function standInSummary(prompt: string): string {
  const lines = prompt.split("\n").filter((line) => line.startsWith("Human:") || line.startsWith("Summary:"));
  return `Summary: ${lines.map((line) => line.replace(/^(Human|Summary):\s*/, "")).join(" ")}`.slice(-1000);
}

export async function recallBenchmark(
  log: (line: string) => void,
  options: { postgres?: boolean } = {},
): Promise<string> {
  return (await measureRecall(log, options)).table;
}

/** The recall figures: the table, and the recall@5 share (null when skipped). */
export async function measureRecall(
  log: (line: string) => void,
  options: { postgres?: boolean } = {},
): Promise<{ table: string; recallAt5: number | null }> {
  const db = options.postgres ? await testDatabase() : null;
  if (db && "skip" in db) return { table: `Recall on Postgres skipped: ${db.skip}`, recallAt5: null };
  const home = mkdtempSync(path.join(os.tmpdir(), "deerflow-recall-"));
  const facts = plantFacts();
  const byTurn = new Map(facts.map((fact) => [fact.turn, fact]));
  const model = new ScriptedChatModel(
    [
      (messages: BaseMessage[]) => {
        const text = messages.map((m) => String(m.content)).join("\n");
        return text.includes("<new_messages>") ? { content: standInSummary(text) } : { content: "Noted; continuing." };
      },
    ],
    { loop: true, name: "recall model" },
  );
  const config = parseConfigText(
    "sandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\nsummarization: {enabled: true, trigger: {type: tokens, value: 4000}, keep: {type: messages, value: 10}}\n" +
      (db ? `database: {backend: postgres, url: '${db.url}'}\n` : ""),
    { source: null, env: {} },
  );
  const harness = await createHarness(config, { home, env: {}, chatModel: model, onWarning: () => {} }).catch(
    async (error) => {
      await db?.drop();
      throw error;
    },
  );
  try {
    const agent = harness.agent();
    const thread = { configurable: { thread_id: "recall" } };
    for (let turn = 1; turn <= TURNS; turn++) {
      await agent.invoke({ messages: [{ role: "user", content: userText(turn, byTurn.get(turn)) }] }, thread);
      await agent.deerflow.afterRun("recall");
      model.calls.length = 0;
      if (turn % 50 === 0) log(`  recall: ${turn}/${TURNS} turns`);
    }
    // What the model is shown on the next request: play one more turn and read its request.
    await agent.invoke({ messages: [{ role: "user", content: "Turn 201: what do you remember?" }] }, thread);
    const shown = model.calls
      .filter((call) => call.toolNames.includes("search_history"))
      .at(-1)!
      .messages.map((m) => String(m.content))
      .join("\n");
    const tool = createSearchHistoryTool(harness.setup.threadArchive!);
    // The tool is called as the agent calls it: with the thread's state, whose live messages it searches too.
    const live = (await agent.graph.getState(thread)).values as { messages: BaseMessage[] };
    const toolCall = { ...thread, state: { messages: live.messages } };
    let inSummary = 0;
    let inSearch = 0;
    let either = 0;
    const misses: string[] = [];
    for (const fact of facts) {
      const question = `What is the ${fact.subject}?`;
      const found = String(await tool.invoke({ query: question }, toolCall));
      const a = shown.includes(fact.value);
      const b = found.includes(fact.value);
      inSummary += a ? 1 : 0;
      inSearch += b ? 1 : 0;
      either += a || b ? 1 : 0;
      if (!b) misses.push(fact.subject);
    }
    const pct = (n: number) => `${((n / facts.length) * 100).toFixed(0)}%`;
    const compactions = (await harness.setup.threadArchive!.read("recall")).filter(
      (entry) => entry.kind === "compaction",
    ).length;
    const table = [
      `| Recall${db ? " on Postgres" : ""} (${facts.length} questions, ${TURNS}-turn thread, ${compactions} compactions) | Answers present |`,
      "|---|---|",
      `| Summary and kept messages alone (stand-in summarizer) | ${inSummary}/${facts.length} (${pct(inSummary)}) |`,
      `| One search_history call, top 5 (recall@5) | ${inSearch}/${facts.length} (${pct(inSearch)}) |`,
      `| Either | ${either}/${facts.length} (${pct(either)}) |`,
      `| Target recall@5 ≥ 90% | ${inSearch / facts.length >= 0.9 ? "met" : "**missed**"} |`,
      ...(misses.length > 0 ? ["", `Missed by search: ${misses.join(", ")}.`] : []),
    ].join("\n");
    return { table, recallAt5: inSearch / facts.length };
  } finally {
    await harness.close();
    rmSync(home, { recursive: true, force: true });
    await db?.drop();
  }
}
