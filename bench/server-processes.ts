/**
 * The process-level part of `npm run bench -- server`: runs per second and p50/p99 time to first event
 * for real `deerflow serve` child processes — one on SQLite, one on Postgres, and two on one Postgres
 * database with the runs spread over both (each run created and streamed through process i mod 2).
 * The model is the fake OpenAI server answering at once, so the three rows differ only in the database
 * and the number of processes. Postgres comes from the machine (127.0.0.1:5432 or
 * DEERFLOW_TEST_DATABASE_URL), a fresh database per bench; when none answers the rows are skipped
 * with the reason.
 */
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  createTempHome,
  fakeModelConfig,
  spawnServe,
  startFakeOpenAIServer,
  testDatabase,
} from "@deerflow/harness/testing";
import { median, percentile } from "./measure.js";

/** One row: a database, a number of processes, and what their runs measured. */
export interface ProcessRow {
  label: string;
  processes: number;
  runs: number;
  perSecond: number;
  p50: number;
  p99: number;
  failed: number;
}

type StreamRun = (
  url: string,
  threadId: string,
  text: string,
  modes: string[],
) => Promise<{ ttfeMs: number; ok: boolean }>;

export interface Serve {
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
}

export async function startServe(
  cli: string,
  config: string,
  home: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<Serve> {
  const server = spawnServe(cli, ["--port", "0", "--config", config], {
    env: { DEER_FLOW_HOME: home, DEER_FLOW_API_KEYS: "", ...env },
    nodeArgs,
  });
  return { child: server.child, url: await server.url(60_000), exited: server.exited.then(() => undefined) };
}

export async function stopAll(serves: Serve[]): Promise<void> {
  for (const serve of serves) serve.child.kill("SIGTERM");
  await Promise.all(
    serves.map((serve) => Promise.race([serve.exited, new Promise((resolve) => setTimeout(resolve, 15_000))])),
  );
  for (const serve of serves) serve.child.kill("SIGKILL");
}

async function createThread(url: string): Promise<string> {
  const response = await fetch(`${url}/threads`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  return ((await response.json()) as { thread_id: string }).thread_id;
}

/** `total` runs, `level` at a time, run i on process i mod n (its thread created there too). */
async function measure(
  urls: string[],
  total: number,
  level: number,
  streamRun: StreamRun,
  modes: string[],
): Promise<Omit<ProcessRow, "label">> {
  const warm = await Promise.all(urls.map((url) => createThread(url)));
  await Promise.all(warm.map((threadId, index) => streamRun(urls[index]!, threadId, "warm", modes)));
  const threads = await Promise.all(
    Array.from({ length: total }, (_, index) => createThread(urls[index % urls.length]!)),
  );
  const results: Array<{ ttfeMs: number; ok: boolean }> = [];
  const started = performance.now();
  for (let offset = 0; offset < total; offset += level) {
    const batch = threads.slice(offset, offset + level);
    results.push(
      ...(await Promise.all(
        batch.map((threadId, index) =>
          streamRun(urls[(offset + index) % urls.length]!, threadId, `q${offset + index}`, modes),
        ),
      )),
    );
  }
  const wall = (performance.now() - started) / 1000;
  const ttfe = results.map((result) => result.ttfeMs);
  return {
    processes: urls.length,
    runs: total,
    perSecond: total / wall,
    p50: median(ttfe),
    p99: percentile(ttfe, 0.99),
    failed: results.filter((result) => !result.ok).length,
  };
}

/**
 * Measures SQLite with one process, Postgres with one and with two. Returns the rows and, when Postgres
 * was unreachable, the reason its rows are missing.
 */
export async function measureProcesses(options: {
  root: string;
  quick: boolean;
  level: number;
  streamRun: StreamRun;
  modes: string[];
  log: (line: string) => void;
}): Promise<{ rows: ProcessRow[]; skipped: string | null }> {
  const cli = path.join(options.root, "packages/cli/dist/bin/main.js");
  const total = options.quick ? 20 : 100;
  const fake = await startFakeOpenAIServer({
    script: () => ({ content: "ok", usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } }),
  });
  const rows: ProcessRow[] = [];
  let skipped: string | null = null;
  const temp = createTempHome({ prefix: "deerflow-bench-procs-" });
  const scratch = temp.path;
  const configFor = (name: string, database: string) => {
    const file = path.join(scratch, `${name}.yaml`);
    writeFileSync(file, fakeModelConfig(fake.url, database));
    return file;
  };
  const run = async (label: string, config: string, home: string, count: number) => {
    const serves: Serve[] = [];
    try {
      // Started one after the other: the first migrates an empty database, the second finds it done.
      for (let index = 0; index < count; index += 1) serves.push(await startServe(cli, config, home));
      const row = {
        label,
        ...(await measure(
          serves.map((serve) => serve.url),
          total,
          options.level,
          options.streamRun,
          options.modes,
        )),
      };
      options.log(
        `  ${label}, ${count} process${count > 1 ? "es" : ""}: ${row.runs} runs, ${row.perSecond.toFixed(1)} runs/s, ${row.failed} failed`,
      );
      rows.push(row);
    } finally {
      await stopAll(serves);
    }
  };
  try {
    const sqliteHome = path.join(scratch, "sqlite-home");
    await run("SQLite", configFor("sqlite", "database: {backend: sqlite}"), sqliteHome, 1);
    const db = await testDatabase();
    if ("skip" in db) {
      skipped = db.skip;
      options.log(`  Postgres rows skipped: ${db.skip}`);
    } else {
      try {
        await run(
          "Postgres",
          configFor("pg1", `database: {backend: postgres, url: '${db.url}'}`),
          path.join(scratch, "pg1-home"),
          1,
        );
      } finally {
        await db.drop();
      }
      const db2 = await testDatabase();
      if ("skip" in db2) throw new Error(db2.skip);
      try {
        await run(
          "Postgres",
          configFor("pg2", `database: {backend: postgres, url: '${db2.url}'}`),
          path.join(scratch, "pg2-home"),
          2,
        );
      } finally {
        await db2.drop();
      }
    }
  } finally {
    await fake.close();
    temp.cleanup();
  }
  return { rows, skipped };
}
