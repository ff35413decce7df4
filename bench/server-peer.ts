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
import { createTempHome, fakeModelConfig, startFakeOpenAIServer, testDatabase } from "@deerflow/harness/testing";
import pg from "pg";
import { Client } from "@langchain/langgraph-sdk";
import { median, percentile } from "./measure.js";
import { type Serve, startServe, stopAll } from "./server-processes.js";
import { ensureReleaseNative } from "../scripts/setup.mjs";

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
  /**
   * `deerflow serve` on a Postgres database of its own, in the streamed-run rounds only: CPU per run is
   * its process's plus its Postgres backends' (null: no Postgres answered).
   */
  postgres: {
    cpuPerRunMs: number;
    serveCpuPerRunMs: number;
    backendCpuPerRunMs: number;
    runs: number;
    failed: number;
  } | null;
  /** Ours with `server.run_workers` (runs on worker threads), when measured. */
  threaded?: PeerSide & { runWorkers: number };
  /** Ours on Postgres in the create and search rounds (`threadsOnly`); its CPU counts its backends'. */
  postgresThreads?: PeerSide;
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
  const profile = profileOptions("peer");
  const child = spawn(process.execPath, [...profile, "--import", "tsx", path.join(root, "bench/peer-serve.ts"), cwd], {
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

/**
 * With BENCH_CPU_PROFILE_DIR set, the node options that make a server child write a V8 CPU profile into
 * `<dir>/<name>` when it exits (`ours` is `deerflow serve` on SQLite, `peer` the peer); none otherwise.
 */
function profileOptions(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROFILE_DIR;
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(dir, name)}`] : [];
}

/** User + system CPU time of a process so far, in ms (Linux /proc). */
function cpuMs(child: ChildProcess, tick: number): number {
  const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of stat (utime, stime); the slice starts at field 3.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / tick;
}

/**
 * CPU time so far of the Postgres backends serving database `name` (their /proc stat: the database runs
 * on this machine), by backend pid. `admin` is connected to another database, so it is not counted.
 */
async function backendCpuMs(admin: pg.Client, name: string, tick: number): Promise<Map<number, number>> {
  const result = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1", [name]);
  const out = new Map<number, number>();
  for (const { pid } of result.rows) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / tick);
    } catch {
      // The backend exited between the query and the read.
    }
  }
  return out;
}

/** CPU the backends spent between two readings (a backend that appeared in between counts from zero). */
function backendDelta(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
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
  /** Of `cpu`, the Postgres backends' share (the Postgres side only). */
  backendCpu?: number;
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
  /** The streamed-run rounds as [start, end] in µs of the monotonic clock (a CPU profile's timestamps). */
  windows: Array<[number, number]>;
}

/** Measures both servers; stops them before returning. */
export async function measurePeer(options: {
  root: string;
  quick: boolean;
  log: (line: string) => void;
  /** Also measure ours with `server.run_workers` this many threads (a third server in the same rounds). */
  runWorkers?: number;
  /** Only `threads.create` and `threads.search` (no streamed runs), with ours on Postgres in those rounds too. */
  threadsOnly?: boolean;
}): Promise<PeerReport> {
  const { root, quick, log } = options;
  const threadsOnly = options.threadsOnly ?? false;
  const runWorkers = options.runWorkers ?? 0;
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
  const db = await testDatabase();
  let admin: pg.Client | undefined;
  try {
    const cli = path.join(root, "packages/cli/dist/bin/main.js");
    const oursServe = await startServe(cli, configFile, path.join(temp.path, "ours-home"), {}, profileOptions("ours"));
    serves.push(oursServe);
    const peerServe = await startPeer(root, temp.path, configFile);
    serves.push(peerServe);
    let threadedServe: Serve | undefined;
    if (runWorkers > 0) {
      const threadedConfig = path.join(temp.path, "config-threads.yaml");
      writeFileSync(
        threadedConfig,
        fakeModelConfig(fake.url, `database: {backend: sqlite}\nserver: {run_workers: ${runWorkers}}`),
      );
      threadedServe = await startServe(cli, threadedConfig, path.join(temp.path, "threads-home"));
      serves.push(threadedServe);
    }
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
      windows: [],
    });
    const sides = [
      side("ours", oursServe),
      side("peer", peerServe),
      ...(threadedServe ? [side("threads", threadedServe)] : []),
    ];
    log(`  ours at ${oursServe.url}, peer at ${peerServe.url}`);
    // `deerflow serve` on Postgres, for CPU per run counted with its database backends'.
    let pgSide: (Side & { dbName: string }) | undefined;
    if (!("skip" in db)) {
      const pgConfig = path.join(temp.path, "config-pg.yaml");
      writeFileSync(pgConfig, fakeModelConfig(fake.url, `database: {backend: postgres, url: '${db.url}'}`));
      const pgServe = await startServe(cli, pgConfig, path.join(temp.path, "ours-pg-home"));
      serves.push(pgServe);
      pgSide = { ...side("ours-postgres", pgServe), backendCpu: 0, dbName: new URL(db.url).pathname.slice(1) };
      const adminUrl = new URL(db.url);
      adminUrl.pathname = "/postgres";
      admin = new pg.Client({ connectionString: adminUrl.toString() });
      await admin.connect();
      log(`  ours on Postgres at ${pgServe.url}`);
    }
    const runSides = pgSide ? [...sides, pgSide] : sides;
    // The sides of the create and search rounds: ours on Postgres joins them when runs are not measured.
    const threadSides = threadsOnly ? runSides : sides;

    /** The CPU `s` spent (with its Postgres backends', for ours on Postgres) while `work` ran. */
    const cpuAround = async (s: Side, work: () => Promise<void>): Promise<number> => {
      const backends = s === pgSide ? () => backendCpuMs(admin!, pgSide.dbName, tick) : undefined;
      const backendsBefore = await backends?.();
      const before = cpuMs(s.serve.child, tick);
      await work();
      const spent = cpuMs(s.serve.child, tick) - before;
      return backends ? spent + backendDelta(backendsBefore!, await backends()) : spent;
    };

    // Warm-up: graph build, JIT, first database pages.
    for (const s of runSides)
      for (let index = 0; index < 5; index += 1) {
        const thread = await s.client.threads.create();
        if (!threadsOnly) await sdkRun(s.client, thread.thread_id, "warm");
      }

    // create-thread, 100 at a time per side, alternating; then threads.search over them, 10 at a time.
    for (let done = 0; done < threadCount; done += 100) {
      for (const s of rotate(threadSides, done / 100)) {
        const spent = await cpuAround(s, async () => {
          for (let index = 0; index < 100; index += 1) {
            const start = performance.now();
            await s.client.threads.create({ metadata: { bench: "peer", index: done + index } });
            s.creates.push(performance.now() - start);
          }
        });
        s.createCpu += spent;
      }
    }
    for (let round = 0; round < (quick ? 5 : 20); round += 1)
      for (const s of rotate(threadSides, round)) {
        s.searchCpu += await cpuAround(s, async () => {
          for (let index = 0; index < SEARCHES_PER_ROUND; index += 1) {
            const start = performance.now();
            const found = await s.client.threads.search({
              limit: searchLimit,
              sortBy: "updated_at",
              sortOrder: "desc",
            });
            s.searches.push(performance.now() - start);
            if (found.length !== searchLimit)
              throw new Error(`${s.name}: threads.search returned ${found.length} threads`);
          }
        });
      }
    log(`  create-thread and threads.search over ${threadCount} threads measured`);

    // Streamed runs, `level` at a time on new threads, rounds alternating between the servers.
    for (const level of threadsOnly ? [] : [10, 50]) {
      const rounds = quick ? 2 : Math.max(4, Math.ceil(200 / level));
      for (let round = 0; round < rounds; round += 1)
        for (const s of rotate(runSides, round)) {
          const threads = await Promise.all(Array.from({ length: level }, () => s.client.threads.create()));
          const backends = s === pgSide ? () => backendCpuMs(admin!, pgSide.dbName, tick) : undefined;
          const backendsBefore = await backends?.();
          const before = cpuMs(s.serve.child, tick);
          const startedAt = process.hrtime.bigint();
          const started = performance.now();
          const results = await Promise.all(
            threads.map((thread, index) => sdkRun(s.client, thread.thread_id, `q${index}`)),
          );
          s.wall.set(level, (s.wall.get(level) ?? 0) + (performance.now() - started));
          s.cpu += cpuMs(s.serve.child, tick) - before;
          s.windows.push([Number(startedAt / 1000n), Number(process.hrtime.bigint() / 1000n)]);
          if (backends) {
            const spent = backendDelta(backendsBefore!, await backends());
            s.backendCpu = (s.backendCpu ?? 0) + spent;
            s.cpu += spent;
          }
          s.runs += results.length;
          s.failed += results.filter((result) => !result.ok).length;
          s.ttfe.set(level, [...(s.ttfe.get(level) ?? []), ...results.map((result) => result.ttfeMs)]);
        }
      log(`  ${level} concurrent runs measured (${rounds} rounds per server)`);
    }
    const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
    if (profileDir)
      for (const s of sides.slice(0, 2)) {
        mkdirSync(path.resolve(profileDir, s.name), { recursive: true });
        writeFileSync(path.resolve(profileDir, s.name, "windows.json"), JSON.stringify(s.windows));
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
    return {
      ours: report(sides[0]!),
      peer: report(sides[1]!),
      postgres:
        pgSide && !threadsOnly
          ? {
              cpuPerRunMs: pgSide.cpu / pgSide.runs,
              backendCpuPerRunMs: (pgSide.backendCpu ?? 0) / pgSide.runs,
              serveCpuPerRunMs: (pgSide.cpu - (pgSide.backendCpu ?? 0)) / pgSide.runs,
              runs: pgSide.runs,
              failed: pgSide.failed,
            }
          : null,
      ...(sides[2] ? { threaded: { ...report(sides[2]), runWorkers } } : {}),
      ...(threadsOnly && pgSide ? { postgresThreads: report(pgSide) } : {}),
      threads: threadCount,
      searchLimit,
    };
  } finally {
    await admin?.end().catch(() => {});
    await stopAll(serves);
    if (!("skip" in db)) await db.drop().catch(() => {});
    await fake.close();
    temp.cleanup();
  }
}

/** The sides in round `round`'s order: each side goes first, last and in between equally often. */
function rotate<T>(sides: T[], round: number): T[] {
  const order = round % 2 === 0 ? sides : [...sides].reverse();
  const shift = Math.floor(round / 2) % order.length;
  return [...order.slice(shift), ...order.slice(0, shift)];
}

/** The figures as markdown: each with its ratio ours/peer (and ours with run worker threads, when measured). */
export function peerTable(report: PeerReport): string {
  const { ours, peer, threaded } = report;
  const fmt = (value: number, digits = 1) => value.toFixed(digits);
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  /** One row: ours, the peer, ours/peer, then (when measured) ours with threads and threads/peer. */
  const row = (label: string, pick: (side: PeerSide) => number, digits = 1) => {
    const cells = [fmt(pick(ours), digits), fmt(pick(peer), digits), ratio(pick(ours), pick(peer))];
    if (threaded) cells.push(fmt(pick(threaded), digits), ratio(pick(threaded), pick(peer)));
    return `| ${label} | ${cells.join(" | ")} |`;
  };
  const rows = [
    row("Server CPU per run (ms)", (side) => side.cpuPerRunMs),
    ...ours.levels.flatMap((level, index) => [
      row(`First event p50 at ${level.level} concurrent (ms)`, (side) => side.levels[index]!.p50),
      row(`First event p99 at ${level.level} concurrent (ms)`, (side) => side.levels[index]!.p99),
      row(`Runs per second at ${level.level} concurrent`, (side) => side.levels[index]!.perSecond),
    ]),
    row("`threads.create`, median (ms)", (side) => side.createMs, 2),
    row(
      `\`threads.search\` over ${report.threads} threads, limit ${report.searchLimit}, median (ms)`,
      (side) => side.searchMs,
      2,
    ),
    row("Server CPU per `threads.create` (ms)", (side) => side.createCpuMs, 2),
    row("Server CPU per `threads.search` (ms)", (side) => side.searchCpuMs, 2),
    `| Runs, of them failed | ${ours.runs}, ${ours.failed} | ${peer.runs}, ${peer.failed} | |${threaded ? ` ${threaded.runs}, ${threaded.failed} | |` : ""}`,
    ...(report.postgres
      ? [
          `| Server CPU per run on Postgres (ms): \`deerflow serve\` + its Postgres backends (${fmt(report.postgres.serveCpuPerRunMs)} + ${fmt(report.postgres.backendCpuPerRunMs)}), ${report.postgres.runs} runs, ${report.postgres.failed} failed | ${fmt(report.postgres.cpuPerRunMs)} | ${fmt(peer.cpuPerRunMs)} | ${ratio(report.postgres.cpuPerRunMs, peer.cpuPerRunMs)} |${threaded ? " | |" : ""}`,
        ]
      : [`| Server CPU per run on Postgres | skipped: no Postgres | | |${threaded ? " | |" : ""}`]),
  ];
  const header = `| Same lead agent, SDK calls | DeerFlow.ts (\`deerflow serve\`, SQLite) | peer (\`@langchain/langgraph-api\` ${PEER_VERSION}, in memory) | ours / peer |${threaded ? ` DeerFlow.ts, \`server.run_workers: ${threaded.runWorkers}\` | threads / peer |` : ""}`;
  return [header, threaded ? "|---|---|---|---|---|---|" : "|---|---|---|---|", ...rows].join("\n");
}

/** The create and search figures alone (a `threadsOnly` measure), with ours on Postgres when it ran. */
export function threadsTable(report: PeerReport): string {
  const { ours, peer, postgresThreads: pg } = report;
  const row = (label: string, pick: (side: PeerSide) => number) => {
    const cells = [pick(ours).toFixed(2), pick(peer).toFixed(2), `${(pick(ours) / pick(peer)).toFixed(2)}×`];
    if (pg) cells.push(pick(pg).toFixed(2), `${(pick(pg) / pick(peer)).toFixed(2)}×`);
    return `| ${label} | ${cells.join(" | ")} |`;
  };
  return [
    `| Same SDK calls | DeerFlow.ts (SQLite) | peer (in memory) | ours / peer |${pg ? " DeerFlow.ts (Postgres; CPU with its backends') | Postgres / peer |" : ""}`,
    pg ? "|---|---|---|---|---|---|" : "|---|---|---|---|",
    row("`threads.create`, median (ms)", (side) => side.createMs),
    row(
      `\`threads.search\` over ${report.threads} threads, limit ${report.searchLimit}, median (ms)`,
      (side) => side.searchMs,
    ),
    row("Server CPU per `threads.create` (ms)", (side) => side.createCpuMs),
    row("Server CPU per `threads.search` (ms)", (side) => side.searchCpuMs),
  ].join("\n");
}

/**
 * `node --import tsx bench/server-peer.ts [--quick] [--run-workers N] [--threads]`: the peer comparison
 * alone, printed, nothing written; with `--run-workers N` a third server, ours with N run worker threads, in
 * the same rounds; with `--threads` only `threads.create` and `threads.search`, ours on Postgres joining them.
 * With BENCH_CPU_PROFILE_DIR=<dir>, ours (SQLite) and the peer each write a `.cpuprofile` into
 * `<dir>/ours` and `<dir>/peer` when stopped (the whole process life), and `windows.json` beside it: the
 * streamed-run rounds as [start, end] µs of the monotonic clock, the profile's own timestamps.
 */
if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
  const log = (line: string) => process.stderr.write(`${line}\n`);
  ensureReleaseNative(log);
  const at = process.argv.indexOf("--run-workers");
  const runWorkers = at > 0 ? Number(process.argv[at + 1]) : 0;
  const threadsOnly = process.argv.includes("--threads");
  const report = await measurePeer({ root, quick: process.argv.includes("--quick"), log, runWorkers, threadsOnly });
  process.stdout.write(`${threadsOnly ? threadsTable(report) : peerTable(report)}\n`);
}
