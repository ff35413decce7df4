/**
 * Postgres round trips of `deerflow serve` for `npm run bench -- server`: one process on a fresh
 * Postgres database, with bench/pg-count.mjs preloaded to count every statement it sends. Counts
 * `threads.create` and a one-turn streamed run (request to the stream's end) separately, over several
 * sequential runs, and what the process sends while idle for a second (background work: lease renewal,
 * pruning), which the run counts may include in part.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createTempHome, fakeModelConfig, startFakeOpenAIServer, testDatabase } from "@deerflow/harness/testing";
import { Client } from "@langchain/langgraph-sdk";
import { median } from "./measure.js";
import { type Serve, startServe, stopAll } from "./server-processes.js";

export interface RoundTrips {
  create: number;
  run: number;
  idlePerSecond: number;
  runs: number;
  /** The statements of the last measured run, in order. */
  sample: string[];
  /** The last run's statements by kind, most first. */
  kinds: Array<[string, number]>;
}

const KINDS: Array<[string, RegExp]> = [
  // The stock saver's INSERTs, and ours: one statement per checkpoint or per task's writes (a CTE, with
  // the large values its rows refer to, and the first of a run with the worker's kwargs riding on it).
  ["checkpointer writes", /^WITH (guard|rider) AS|^INSERT INTO "public"\.checkpoint/],
  ["event log (append, read, notify)", /run_events|run_event_trims|pg_notify/],
  ["transaction BEGIN/COMMIT", /^(BEGIN|COMMIT|ROLLBACK)$/],
  ["run fence (still the run's worker?)", /^SELECT 1 (WHERE EXISTS \(SELECT 1 )?FROM server_runs WHERE run_id/],
  [
    "retention",
    /pg_advisory_xact_lock\((\$1|1145458770), hashtext|^DELETE FROM checkpoint|^WITH gone_checkpoints|^UPDATE checkpoints|^SELECT checkpoint_id, parent/,
  ],
  ["checkpointer reads", /^select thread_id, checkpoint|large_values/],
];

/** Counts statements by kind (the first pattern that matches; the rest are "runs, threads, leases"). */
export function kindsOf(statements: readonly string[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const text of statements) {
    const kind = KINDS.find(([, pattern]) => pattern.test(text))?.[0] ?? "runs, threads, leases";
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Asks the child for its statements since the last ask (SIGUSR2 → the count file). */
async function tally(serve: Serve, file: string): Promise<string[]> {
  rmSync(file, { force: true });
  serve.child.kill("SIGUSR2");
  for (let waited = 0; !existsSync(file); waited += 5) {
    if (waited > 10_000) throw new Error("The server did not write its Postgres statement count.");
    await sleep(5);
  }
  // The file is written in one synchronous call; read until it parses.
  for (;;) {
    try {
      return JSON.parse(readFileSync(file, "utf8")) as string[];
    } catch {
      await sleep(5);
    }
  }
}

/** Measures the round trips, or returns why not (no Postgres). */
export async function measureRoundTrips(options: {
  root: string;
  quick: boolean;
  log: (line: string) => void;
}): Promise<RoundTrips | { skip: string }> {
  const db = await testDatabase();
  if ("skip" in db) return db;
  const fake = await startFakeOpenAIServer({
    script: () => ({ content: "ok", usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } }),
  });
  const temp = createTempHome({ prefix: "deerflow-bench-pgcount-" });
  const serves: Serve[] = [];
  try {
    const config = path.join(temp.path, "config.yaml");
    writeFileSync(config, fakeModelConfig(fake.url, `database: {backend: postgres, url: '${db.url}'}`));
    const countFile = path.join(temp.path, "pg-count.json");
    const preload = pathToFileURL(path.join(options.root, "bench/pg-count.mjs")).href;
    // The unbundled entry (tsc's output): the bundle carries its own copy of pg, which the preload
    // cannot reach; this one loads pg from node_modules, as the preload does.
    const serve = await startServe(
      path.join(options.root, "packages/cli/dist/main.js"),
      config,
      path.join(temp.path, "home"),
      {
        BENCH_PG_COUNT_FILE: countFile,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${preload}`.trim(),
      },
    );
    serves.push(serve);
    const client = new Client({ apiUrl: serve.url });
    const oneRun = async (threadId: string) => {
      for await (const _ of client.runs.stream(threadId, "lead_agent", {
        input: { messages: [{ role: "user", content: "How are you?" }] },
        streamMode: ["values", "messages-tuple", "updates", "custom"],
      }))
        void _;
    };
    for (let index = 0; index < 3; index += 1) await oneRun((await client.threads.create()).thread_id);
    await sleep(500);
    await tally(serve, countFile);
    await sleep(1000);
    const idle = (await tally(serve, countFile)).length;

    const creates: number[] = [];
    const runs: number[] = [];
    let sample: string[] = [];
    const total = options.quick ? 3 : 10;
    for (let index = 0; index < total; index += 1) {
      await tally(serve, countFile);
      const thread = await client.threads.create();
      creates.push((await tally(serve, countFile)).length);
      await oneRun(thread.thread_id);
      sample = await tally(serve, countFile);
      runs.push(sample.length);
    }
    options.log(`  Postgres round trips: create ${median(creates)}, run ${median(runs)}, idle ${idle}/s`);
    return {
      create: median(creates),
      run: median(runs),
      idlePerSecond: idle,
      runs: total,
      sample,
      kinds: kindsOf(sample),
    };
  } finally {
    await stopAll(serves);
    await fake.close();
    await db.drop();
    temp.cleanup();
  }
}

/** `node --import tsx bench/server-roundtrips.ts [--quick]`: prints the counts and the last run's statements. */
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
  const result = await measureRoundTrips({
    root,
    quick: process.argv.includes("--quick"),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
