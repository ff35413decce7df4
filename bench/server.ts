/**
 * `npm run bench -- server [--quick]`: what the agent server costs. A real `deerflow serve` server
 * (createServer over createHarness) on an OS-chosen port, driven over HTTP with plain fetch, with a
 * zero-latency scripted model, so every figure is the server's and the harness's own time:
 *
 * - runs per second and p50/p99 time to first event for 1, 10 and 100 concurrent streamed runs on
 *   different threads, and whether every run completed with every event delivered once and in order;
 * - SSE bytes per run for the four modes DeerFlow's UI asks for against a `values`-only stream;
 * - the server's overhead per run against the same run streamed in process;
 * - runs per second and time to first event for `deerflow serve` child processes: one on SQLite, one on
 *   Postgres, two on one Postgres database (bench/server-processes.ts; Postgres rows skipped with the
 *   reason when no Postgres answers);
 * - `deerflow serve` against the peer, `@langchain/langgraph-api` serving the same lead agent: CPU per
 *   run, first event at 10 and 50 concurrent runs, create-thread and threads.search, as ratios
 *   (bench/server-peer.ts);
 * - Postgres round trips of `threads.create` and of a one-turn run (bench/server-roundtrips.ts).
 *
 * Measurement, not a test: nothing asserts on time. The figures go into docs/benchmarks.md (and the
 * template bench/notes.md, so the harness bench keeps them) between the server-figures markers.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createHarness, parseConfigText } from "@deerflow/harness";
import { ScriptedChatModel } from "@deerflow/harness/testing";
import { createServer } from "@deerflow/server";
import { median, percentile } from "./measure.js";
import { measurePeer, peerTable } from "./server-peer.js";
import { measureProcesses } from "./server-processes.js";
import { measureRoundTrips } from "./server-roundtrips.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const log = (line: string) => process.stderr.write(`${line}\n`);
const UI_MODES = ["values", "messages-tuple", "updates", "custom"];

interface StreamResult {
  ttfeMs: number;
  totalMs: number;
  bytes: number;
  ok: boolean;
  events: number;
}

/** Streams one run over HTTP; checks metadata first, end last, ids 1..n each once. */
async function streamRun(url: string, threadId: string, text: string, modes: string[]): Promise<StreamResult> {
  const start = performance.now();
  const response = await fetch(`${url}/threads/${threadId}/runs/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      assistant_id: "lead_agent",
      input: { messages: [{ role: "user", content: text }] },
      stream_mode: modes,
    }),
  });
  const reader = response.body!.getReader();
  let ttfe = -1;
  let bytes = 0;
  let raw = "";
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (ttfe < 0) ttfe = performance.now() - start;
    bytes += value.byteLength;
    raw += decoder.decode(value, { stream: true });
  }
  const frames = raw.split("\n\n").filter((block) => block.trim() !== "" && !block.startsWith(":"));
  const names = frames.map((block) => /^event: (.*)$/m.exec(block)?.[1]);
  const ids = frames.map((block) => Number(/^id: (.*)$/m.exec(block)?.[1]));
  // The in-memory log numbers events 1, 2, 3, ...; the Postgres one row id × 10000 + index: there ids
  // must only grow (a repeat or a step back is a duplicate or a reordering).
  const ordered =
    ids[0] === 1
      ? ids.every((id, index) => id === index + 1)
      : ids.every((id, index) => Number.isFinite(id) && (index === 0 || id > ids[index - 1]!));
  const ok =
    response.status === 200 && names[0] === "metadata" && names.at(-1) === "end" && !names.includes("error") && ordered;
  return { ttfeMs: ttfe, totalMs: performance.now() - start, bytes, ok, events: frames.length };
}

async function createThreads(url: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const response = await fetch(`${url}/threads`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    ids.push(((await response.json()) as { thread_id: string }).thread_id);
  }
  return ids;
}

/** Runs the server benchmark; writes docs/benchmarks.md unless `quick`. */
export async function main(quick: boolean): Promise<void> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "deerflow-bench-server-"));
  const model = new ScriptedChatModel(
    [() => ({ content: "ok", usage_metadata: { input_tokens: 10, output_tokens: 1, total_tokens: 11 } })],
    { loop: true },
  );
  const config = parseConfigText(
    [
      "models:",
      "  - {name: bench, use: openai, model: bench, api_key: x}",
      "sandbox: {use: local}",
      "memory: {enabled: false}",
      "title: {enabled: false}",
    ].join("\n"),
    { source: null, env: {} },
  );
  const harness = await createHarness(config, { home: scratch, env: {}, chatModel: model, onWarning: () => {} });
  const server = createServer(harness, { env: {}, log: () => {} });
  const { url } = await server.start({ host: "127.0.0.1", port: 0 });
  const maxConcurrent = server.context.options.maxConcurrentRuns;
  try {
    // Warm-up: first graph build, SQLite pages, JIT.
    for (const threadId of await createThreads(url, 5)) await streamRun(url, threadId, "warm", UI_MODES);

    const concurrency: Array<{
      level: number;
      runs: number;
      perSecond: number;
      p50: number;
      p99: number;
      allOk: boolean;
      failed: number;
    }> = [];
    for (const level of [1, 10, 100]) {
      const total = quick ? Math.max(level, 20) : Math.max(level * 2, 100);
      const threads = await createThreads(url, total);
      const results: StreamResult[] = [];
      const started = performance.now();
      for (let offset = 0; offset < total; offset += level) {
        const batch = threads.slice(offset, offset + level);
        results.push(
          ...(await Promise.all(
            batch.map((threadId, index) => streamRun(url, threadId, `q${offset + index}`, UI_MODES)),
          )),
        );
      }
      const wall = (performance.now() - started) / 1000;
      const ttfe = results.map((result) => result.ttfeMs);
      const failed = results.filter((result) => !result.ok).length;
      concurrency.push({
        level,
        runs: total,
        perSecond: total / wall,
        p50: median(ttfe),
        p99: percentile(ttfe, 0.99),
        allOk: failed === 0,
        failed,
      });
      log(`  ${level} concurrent: ${total} runs, ${(total / wall).toFixed(1)} runs/s, ${failed} failed`);
    }

    const sample = quick ? 10 : 30;
    const bytesFor = async (modes: string[]) => {
      const results: StreamResult[] = [];
      for (const threadId of await createThreads(url, sample))
        results.push(await streamRun(url, threadId, "How are you?", modes));
      return {
        bytes: median(results.map((result) => result.bytes)),
        events: median(results.map((result) => result.events)),
      };
    };
    const uiBytes = await bytesFor(UI_MODES);
    const valuesBytes = await bytesFor(["values"]);
    log(`  SSE bytes per run: ${uiBytes.bytes} (four modes) vs ${valuesBytes.bytes} (values)`);

    // Overhead: the same one-turn run on a fresh thread, in process vs over HTTP, interleaved.
    const graph = harness.agent().graph;
    const inProcess: number[] = [];
    const overHttp: number[] = [];
    const httpThreads = await createThreads(url, sample);
    for (let index = 0; index < sample; index += 1) {
      const start = performance.now();
      for await (const _ of await graph.stream(
        { messages: [{ role: "user", content: "How are you?" }] },
        { configurable: { thread_id: `inproc-${index}` }, streamMode: ["values", "messages", "updates", "custom"] },
      ))
        void _;
      inProcess.push(performance.now() - start);
      overHttp.push((await streamRun(url, httpThreads[index]!, "How are you?", UI_MODES)).totalMs);
    }
    const overhead = { inProcess: median(inProcess), http: median(overHttp) };
    log(`  per run: ${overhead.inProcess.toFixed(1)} ms in process, ${overhead.http.toFixed(1)} ms over HTTP`);

    // Real `deerflow serve` processes (the fake OpenAI server as the model), 10 runs at a time.
    const processLevel = 10;
    const processes = await measureProcesses({ root, quick, level: processLevel, streamRun, modes: UI_MODES, log });

    // The peer (`@langchain/langgraph-api`) serving the same lead agent; Postgres round trips of one run.
    const peer = await measurePeer({ root, quick, log, runWorkers: 2 });
    const roundTrips = await measureRoundTrips({ root, quick, log });

    const fmt = (value: number, digits = 1) => value.toFixed(digits);
    const machine = `${os.cpus()[0]?.model ?? "cpu"}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
    const figures = [
      `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC on ${machine}, with \`npm run bench -- server\` (server default \`maxConcurrentRuns\` ${maxConcurrent}; runs beyond it wait in the queue).`,
      "",
      "| Concurrent streamed runs | Runs | Runs per second | Time to first event p50 / p99 (ms) | All complete, every event once and in order |",
      "|---|---|---|---|---|",
      ...concurrency.map(
        (row) =>
          `| ${row.level} | ${row.runs} | ${fmt(row.perSecond)} | ${fmt(row.p50)} / ${fmt(row.p99)} | ${row.allOk ? "yes" : `no (${row.failed} failed)`} |`,
      ),
      "",
      "| SSE per run (one-turn run on a new thread) | Bytes | Events |",
      "|---|---|---|",
      `| \`values\`, \`messages-tuple\`, \`updates\`, \`custom\` (DeerFlow's UI) | ${uiBytes.bytes} | ${uiBytes.events} |`,
      `| \`values\` only | ${valuesBytes.bytes} | ${valuesBytes.events} |`,
      "",
      "| Per run, median (ms) | In process (`graph.stream`) | Over HTTP (`runs/stream`) | Server overhead |",
      "|---|---|---|---|",
      `| One-turn run, four modes | ${fmt(overhead.inProcess)} | ${fmt(overhead.http)} | ${fmt(overhead.http - overhead.inProcess)} |`,
      "",
      `| \`deerflow serve\` processes, ${processLevel} streamed runs at a time | Database | Runs | Runs per second | Time to first event p50 / p99 (ms) | All complete, every event once and in order |`,
      "|---|---|---|---|---|---|",
      ...processes.rows.map(
        (row) =>
          `| ${row.processes} | ${row.label} | ${row.runs} | ${fmt(row.perSecond)} | ${fmt(row.p50)} / ${fmt(row.p99)} | ${row.failed === 0 ? "yes" : `no (${row.failed} failed)`} |`,
      ),
      ...(processes.skipped ? ["", `Postgres rows skipped: ${processes.skipped}`] : []),
      "",
      peerTable(peer),
      "",
      "skip" in roundTrips
        ? `Postgres round trips skipped: ${roundTrips.skip}`
        : [
            `| Postgres round trips, \`deerflow serve\` (median of ${roundTrips.runs} sequential runs) | Statements |`,
            "|---|---|",
            `| \`threads.create\` | ${roundTrips.create} |`,
            `| One-turn streamed run, request to the stream's end | ${roundTrips.run} |`,
            ...roundTrips.kinds.map(([kind, count]) => `| — of them ${kind} (last run) | ${count} |`),
            `| Idle process, per second | ${roundTrips.idlePerSecond} |`,
          ].join("\n"),
    ].join("\n");
    process.stdout.write(`\n${figures}\n`);
    if (!quick) {
      const replace = (file: string) => {
        const text = readFileSync(file, "utf8");
        const next = text.replace(
          /<!-- server-figures:start -->[\s\S]*?<!-- server-figures:end -->/,
          `<!-- server-figures:start -->\n${figures}\n<!-- server-figures:end -->`,
        );
        writeFileSync(file, next);
      };
      replace(path.join(root, "docs/benchmarks.md"));
      replace(path.join(root, "bench/notes.md"));
      log("written: docs/benchmarks.md");
    }
  } finally {
    await server.stop();
    await harness.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
