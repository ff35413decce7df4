/**
 * The peer part of `npm run bench -- server`: our `deerflow serve` (SQLite) against the LangGraph API
 * server (`@langchain/langgraph-api` 1.5.1, in memory, as `langgraph dev` runs it) serving the same
 * lead agent (bench/peer-graph.ts), with the same fake OpenAI server as the model and the same SDK
 * calls, in interleaved rounds. Each server is a child process, so its CPU time is read from
 * /proc/<pid>/stat around the streamed runs only.
 *
 * The peer is installed from npm into bench/peer on first use (`npm install --prefix bench/peer
 * --legacy-peer-deps`): without its peer dependencies it resolves LangGraph and LangChain from the
 * repository root, so both servers run the same graph code.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createTempHome, fakeModelConfig, startFakeOpenAIServer } from "@deerflow/harness/testing";
import { Client } from "@langchain/langgraph-sdk";
import { median, percentile } from "./measure.js";
import { type Serve, startServe, stopAll } from "./server-processes.js";

export const PEER_VERSION = "1.5.1";
/** Searches per server in each round of the search measure (its CPU time is read around them). */
const SEARCHES_PER_ROUND = 10;
const UI_MODES = ["values", "messages-tuple", "updates", "custom"] as const;

/** What one server measured; times in ms. */
export interface PeerSide {
  createMs: number;
  searchMs: number;
  /** Server CPU (user + system) per call, over all of them: steadier than the wall times on a loaded machine. */
  createCpuMs: number;
  searchCpuMs: number;
  cpuPerRunMs: number;
  runs: number;
  failed: number;
  levels: Array<{ level: number; runs: number; p50: number; p99: number; perSecond: number }>;
}

export interface PeerReport {
  ours: PeerSide;
  peer: PeerSide;
  threads: number;
  searchLimit: number;
}

/** Installs the peer into bench/peer unless it is there already. */
export function ensurePeer(root: string, log: (line: string) => void): void {
  const folder = path.join(root, "bench/peer");
  const installed = path.join(folder, "node_modules/@langchain/langgraph-api/package.json");
  if (existsSync(installed) && JSON.parse(readFileSync(installed, "utf8")).version === PEER_VERSION) return;
  log(`  installing @langchain/langgraph-api ${PEER_VERSION} into bench/peer (first use)...`);
  execFileSync("npm", ["install", "--prefix", folder, "--legacy-peer-deps", "--no-audit", "--no-fund"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** Starts bench/peer-serve.ts as a child; resolves with its URL once it listens. */
async function startPeer(root: string, scratch: string, configFile: string): Promise<Serve> {
  const cwd = path.join(scratch, "peer");
  mkdirSync(cwd, { recursive: true });
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "bench/peer-serve.ts"), cwd], {
    cwd: root,
    env: {
      ...process.env,
      BENCH_PEER_CONFIG: configFile,
      BENCH_PEER_HOME: path.join(scratch, "peer-home"),
      // The peer logs every request at its default level (debug); ours logs nothing per request.
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let out = "";
  let err = "";
  child.stderr!.on("data", (chunk) => (err += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The peer did not start within 120 s:\n${out}\n${err}`)), 120_000);
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      const match = /peer listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`The peer exited before listening:\n${out}\n${err}`));
    });
  });
  return { child, url, exited };
}

/** User + system CPU time of a process so far, in ms (Linux /proc). */
function cpuMs(child: ChildProcess, tick: number): number {
  const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of stat (utime, stime); the slice starts at field 3.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / tick;
}

function clockTick(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** One streamed run through the SDK: time to the first event, and whether it ended without an error. */
async function sdkRun(client: Client, threadId: string, text: string): Promise<{ ttfeMs: number; ok: boolean }> {
  const start = performance.now();
  let ttfe = -1;
  let sawMetadata = false;
  let error = false;
  let values = 0;
  for await (const chunk of client.runs.stream(threadId, "lead_agent", {
    input: { messages: [{ role: "user", content: text }] },
    streamMode: [...UI_MODES],
  })) {
    if (ttfe < 0) ttfe = performance.now() - start;
    if (chunk.event === "metadata") sawMetadata = true;
    if (chunk.event === "error") error = true;
    if (chunk.event === "values") values += 1;
  }
  return { ttfeMs: ttfe, ok: sawMetadata && !error && values > 0 };
}

interface Side {
  name: string;
  serve: Serve;
  client: Client;
  creates: number[];
  searches: number[];
  createCpu: number;
  searchCpu: number;
  cpu: number;
  runs: number;
  failed: number;
  ttfe: Map<number, number[]>;
  wall: Map<number, number>;
}

/** Measures both servers; stops them before returning. */
export async function measurePeer(options: {
  root: string;
  quick: boolean;
  log: (line: string) => void;
}): Promise<PeerReport> {
  const { root, quick, log } = options;
  ensurePeer(root, log);
  const tick = clockTick();
  const threadCount = quick ? 100 : 1000;
  const searchLimit = 50;
  const fake = await startFakeOpenAIServer({
    script: () => ({ content: "ok", usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } }),
  });
  const temp = createTempHome({ prefix: "deerflow-bench-peer-" });
  const configFile = path.join(temp.path, "config.yaml");
  writeFileSync(configFile, fakeModelConfig(fake.url, "database: {backend: sqlite}"));
  const serves: Serve[] = [];
  try {
    const cli = path.join(root, "packages/cli/dist/bin/main.js");
    const oursServe = await startServe(cli, configFile, path.join(temp.path, "ours-home"));
    serves.push(oursServe);
    const peerServe = await startPeer(root, temp.path, configFile);
    serves.push(peerServe);
    const side = (name: string, serve: Serve): Side => ({
      name,
      serve,
      client: new Client({ apiUrl: serve.url }),
      creates: [],
      searches: [],
      createCpu: 0,
      searchCpu: 0,
      cpu: 0,
      runs: 0,
      failed: 0,
      ttfe: new Map(),
      wall: new Map(),
    });
    const sides = [side("ours", oursServe), side("peer", peerServe)];
    log(`  ours at ${oursServe.url}, peer at ${peerServe.url}`);

    // Warm-up: graph build, JIT, first database pages.
    for (const s of sides)
      for (let index = 0; index < 5; index += 1) {
        const thread = await s.client.threads.create();
        await sdkRun(s.client, thread.thread_id, "warm");
      }

    // create-thread, 100 at a time per side, alternating; then threads.search over them, 10 at a time.
    for (let done = 0; done < threadCount; done += 100) {
      for (const s of done % 200 === 0 ? sides : [...sides].reverse()) {
        const before = cpuMs(s.serve.child, tick);
        for (let index = 0; index < 100; index += 1) {
          const start = performance.now();
          await s.client.threads.create({ metadata: { bench: "peer", index: done + index } });
          s.creates.push(performance.now() - start);
        }
        s.createCpu += cpuMs(s.serve.child, tick) - before;
      }
    }
    for (let round = 0; round < (quick ? 5 : 20); round += 1)
      for (const s of round % 2 === 0 ? sides : [...sides].reverse()) {
        const before = cpuMs(s.serve.child, tick);
        for (let index = 0; index < SEARCHES_PER_ROUND; index += 1) {
          const start = performance.now();
          const found = await s.client.threads.search({ limit: searchLimit, sortBy: "updated_at", sortOrder: "desc" });
          s.searches.push(performance.now() - start);
          if (found.length !== searchLimit)
            throw new Error(`${s.name}: threads.search returned ${found.length} threads`);
        }
        s.searchCpu += cpuMs(s.serve.child, tick) - before;
      }
    log(`  create-thread and threads.search over ${threadCount} threads measured`);

    // Streamed runs, `level` at a time on new threads, rounds alternating between the servers.
    for (const level of [10, 50]) {
      const rounds = quick ? 2 : Math.max(4, Math.ceil(200 / level));
      for (let round = 0; round < rounds; round += 1)
        for (const s of round % 2 === 0 ? sides : [...sides].reverse()) {
          const threads = await Promise.all(Array.from({ length: level }, () => s.client.threads.create()));
          const before = cpuMs(s.serve.child, tick);
          const started = performance.now();
          const results = await Promise.all(
            threads.map((thread, index) => sdkRun(s.client, thread.thread_id, `q${index}`)),
          );
          s.wall.set(level, (s.wall.get(level) ?? 0) + (performance.now() - started));
          s.cpu += cpuMs(s.serve.child, tick) - before;
          s.runs += results.length;
          s.failed += results.filter((result) => !result.ok).length;
          s.ttfe.set(level, [...(s.ttfe.get(level) ?? []), ...results.map((result) => result.ttfeMs)]);
        }
      log(`  ${level} concurrent runs measured (${rounds} rounds per server)`);
    }
    const report = (s: Side): PeerSide => ({
      createMs: median(s.creates),
      searchMs: median(s.searches),
      createCpuMs: s.createCpu / s.creates.length,
      searchCpuMs: s.searchCpu / s.searches.length,
      cpuPerRunMs: s.cpu / s.runs,
      runs: s.runs,
      failed: s.failed,
      levels: [...s.ttfe].map(([level, times]) => ({
        level,
        runs: times.length,
        p50: median(times),
        p99: percentile(times, 0.99),
        perSecond: times.length / (s.wall.get(level)! / 1000),
      })),
    });
    return { ours: report(sides[0]!), peer: report(sides[1]!), threads: threadCount, searchLimit };
  } finally {
    await stopAll(serves);
    await fake.close();
    temp.cleanup();
  }
}

/** The figures as markdown: each with its ratio ours/peer. */
export function peerTable(report: PeerReport): string {
  const { ours, peer } = report;
  const fmt = (value: number, digits = 1) => value.toFixed(digits);
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const rows = [
    `| Server CPU per run (ms) | ${fmt(ours.cpuPerRunMs)} | ${fmt(peer.cpuPerRunMs)} | ${ratio(ours.cpuPerRunMs, peer.cpuPerRunMs)} |`,
    ...ours.levels.flatMap((level, index) => {
      const other = peer.levels[index]!;
      return [
        `| First event p50 at ${level.level} concurrent (ms) | ${fmt(level.p50)} | ${fmt(other.p50)} | ${ratio(level.p50, other.p50)} |`,
        `| First event p99 at ${level.level} concurrent (ms) | ${fmt(level.p99)} | ${fmt(other.p99)} | ${ratio(level.p99, other.p99)} |`,
        `| Runs per second at ${level.level} concurrent | ${fmt(level.perSecond)} | ${fmt(other.perSecond)} | ${ratio(level.perSecond, other.perSecond)} |`,
      ];
    }),
    `| \`threads.create\`, median (ms) | ${fmt(ours.createMs, 2)} | ${fmt(peer.createMs, 2)} | ${ratio(ours.createMs, peer.createMs)} |`,
    `| \`threads.search\` over ${report.threads} threads, limit ${report.searchLimit}, median (ms) | ${fmt(ours.searchMs, 2)} | ${fmt(peer.searchMs, 2)} | ${ratio(ours.searchMs, peer.searchMs)} |`,
    `| Server CPU per \`threads.create\` (ms) | ${fmt(ours.createCpuMs, 2)} | ${fmt(peer.createCpuMs, 2)} | ${ratio(ours.createCpuMs, peer.createCpuMs)} |`,
    `| Server CPU per \`threads.search\` (ms) | ${fmt(ours.searchCpuMs, 2)} | ${fmt(peer.searchCpuMs, 2)} | ${ratio(ours.searchCpuMs, peer.searchCpuMs)} |`,
    `| Runs, of them failed | ${ours.runs}, ${ours.failed} | ${peer.runs}, ${peer.failed} | |`,
  ];
  return [
    `| Same lead agent, SDK calls | DeerFlow.ts (\`deerflow serve\`, SQLite) | peer (\`@langchain/langgraph-api\` ${PEER_VERSION}, in memory) | ours / peer |`,
    "|---|---|---|---|",
    ...rows,
  ].join("\n");
}

/** `node --import tsx bench/server-peer.ts [--quick]`: the peer comparison alone, printed, nothing written. */
if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const report = await measurePeer({ root, quick: process.argv.includes("--quick"), log });
  process.stdout.write(`${peerTable(report)}\n`);
}
