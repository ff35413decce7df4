// The test command (`npm test`, called by .ci/run): sets up a fresh clone (dependencies, bubblewrap
// for the sandbox tests, chromium for the web e2e tests, build), checks the whole tree with Biome (lint,
// formatting, the import layering; about a second), then runs every *.test.ts under packages/ with
// node:test (compiled once by scripts/compile-tests.mjs, then plain `node`), and the web app's component tests with Vitest. A lint failure does not hide the
// test results: the tests still run, and the command exits non-zero at the end.
// Extra arguments are test file paths or substrings to select files ("web" also selects the Vitest run).
//
// Speed (docs/testing.md, "How long it takes"): the apt installs and better-sqlite3's compile run in the
// background while the dependencies install and the packages build; the web app builds beside the
// TypeScript packages, and the harness's own tests (its compiled sources, no build needed) run while
// they build. Each test
// file is its own process (run directly: `node --test` adds a relaying process per file), except the
// harness's and the server's short files, which share a few processes (scripts/test-group.mjs: a process's start-up,
// Node and langchain, costs more CPU than most of them; each file stays a suite of its own). Jobs start
// slowest first (times of the last run on this machine, else the list below) so the long files overlap
// with the many short ones instead of finishing last. A file's output is printed whole when it ends
// (never interleaved), and the run ends with the ten slowest files. DEERFLOW_TEST_CONCURRENCY sets how
// many files run at once (default: cores + 1, since most files spend part of their time waiting on a
// server, a child process, Postgres or Chromium).
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { compiledPath, compileTests } from "./compile-tests.mjs";
import { ensureBuiltConcurrently, ensureInstalled, root } from "./setup.mjs";

const commandStarted = Date.now();
const seconds = (since) => ((Date.now() - since) / 1000).toFixed(0);

/**
 * Seconds files took in a fresh-clone run on the 2-core machine (2026-11-29 01:04, 3 at a time, so beside
 * two others; `run-threads` and `memory-concurrency` as measured since their fixes), to order a fresh
 * clone's first run slowest first: a long file that starts late ends the run late. A file of the harness
 * or the server at GROUP_UNDER_SECONDS or more runs alone rather than in a group.
 */
const KNOWN_SLOW = {
  "packages/harness/test/context/long-thread.test.ts": 68,
  "packages/server/test/batch-crash.test.ts": 56,
  "packages/server/test/provider-dialects.test.ts": 45,
  "packages/server/test/run-threads.test.ts": 45,
  "packages/cli/test/cron.test.ts": 44,
  "packages/web/e2e/schedules.test.ts": 36,
  "packages/cli/test/agents.test.ts": 35,
  "packages/server/test/serve-command.test.ts": 34,
  "packages/web/e2e/live-model.test.ts": 30,
  "packages/cli/test/postgres-threads-prune.test.ts": 30,
  "packages/cli/test/provider-dialects.test.ts": 28,
  "packages/web/e2e/demo.test.ts": 28,
  "packages/cli/test/users.test.ts": 27,
  "packages/server/test/postgres-cluster.test.ts": 25,
  "packages/harness/test/model-calls/answers-in-pieces.test.ts": 24,
  "packages/cli/test/postgres-cli.test.ts": 23,
  "packages/cli/test/config-honoured.test.ts": 23,
  "packages/cli/test/cli-edges.test.ts": 22,
  "packages/cli/test/threads-prune.test.ts": 21,
  "packages/cli/test/mcp.test.ts": 20,
  "packages/web/e2e/models-uploads.test.ts": 19,
  "packages/cli/test/thread-lease.test.ts": 18,
  "packages/cli/test/skills.test.ts": 17,
  "packages/web/e2e/settings.test.ts": 17,
  "packages/web/e2e/versions.test.ts": 17,
  "packages/cli/test/slow-after-answer.test.ts": 17,
  "packages/cli/test/cli.test.ts": 16,
  "packages/cli/test/hostile-home.test.ts": 16,
  "packages/web/e2e/run-changes.test.ts": 16,
  "packages/harness/test/storage/postgres-retention.test.ts": 16,
  "packages/cli/test/streaming.test.ts": 15,
  "packages/cli/test/threads-export.test.ts": 15,
  "packages/web/e2e/goal-references.test.ts": 14,
  "packages/web/e2e/human-in-the-loop.test.ts": 14,
  "packages/cli/test/human-input.test.ts": 14,
  "packages/server/test/redis-cluster.test.ts": 14,
  "packages/harness/src/sandbox/hostile-paths.test.ts": 14,
  "packages/harness/src/sandbox/host-bash.test.ts": 14,
  "packages/harness/src/storage/postgres-thread-lease.test.ts": 14,
  "packages/cli/test/interrupt.test.ts": 13,
  "packages/cli/test/terminal-output.test.ts": 13,
  "packages/cli/test/web-research.test.ts": 13,
  "packages/server/test/postgres-fencing.test.ts": 13,
  "packages/server/test/redis-outage.test.ts": 13,
  "packages/harness/src/sandbox/command-paths.test.ts": 13,
  "packages/web/e2e/auth.test.ts": 12,
  "packages/web/e2e/mcp-settings.test.ts": 12,
  "packages/harness/src/memory/memory-concurrency.test.ts": 12,
  "packages/harness/src/mcp/mcp-service.test.ts": 12,
  "packages/harness/test/storage/large-values.test.ts": 11,
  "packages/harness/test/mcp/lead-agent-mcp.test.ts": 8,
  "packages/web/e2e": 12,
  "packages/cli/test": 10,
  "packages/server/": 4,
  vitest: 19,
};
/**
 * Test files of these packages expected to take under GROUP_UNDER_SECONDS share processes, `perRunner`
 * groups per runner (see groupJobs); longer files, and those in RUN_ALONE, run alone. The harness's
 * groups start while the packages build (its tests import its sources); the server's wait for the build.
 */
const GROUPED = [
  { prefix: "packages/harness/", label: "harness", perRunner: 2 },
  { prefix: "packages/server/", label: "server", perRunner: 1 },
];
const GROUP_UNDER_SECONDS = 8;
const RUN_ALONE = [
  "packages/harness/test/context/long-thread.test.ts",
  // Mock timers, then one setImmediate to let the queue's promises settle: after a file that ran
  // langchain agents in the same process, one turn was not always enough ("threads are debounced separately").
  "packages/harness/src/memory/memory-queue.test.ts",
  // They set process.env for their servers (restored after); kept apart all the same.
  "packages/server/test/postgres-fencing.test.ts",
  "packages/server/test/disk-full.test.ts",
  // Sets DEERFLOW_TEST_RUN_WORKERS and imports the runs, streaming and human-in-the-loop files again.
  "packages/server/test/run-threads.test.ts",
  // Child processes and signals: not tried in a group.
  "packages/server/test/hostile-requests.test.ts",
  "packages/server/test/redis-outage.test.ts",
  "packages/server/test/serve-command.test.ts",
];
const TIMES_FILE = path.join(root, "node_modules", ".cache", "deerflow-test-times.json");

/** Runs a command in the background, keeping what it prints; resolves with its status and output. */
function background(command, args, options = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], ...options });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", (error) => resolve({ status: 1, output: `${output}${error.message}\n`, seconds: 0 }));
    child.on("close", (code, signal) =>
      resolve({ status: code ?? (signal ? 1 : 0), output, seconds: (Date.now() - started) / 1000 }),
    );
  });
}

function findTests(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "dist") return [];
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? findTests(full) : entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

const filters = process.argv.slice(2);
const files = findTests(path.join(root, "packages"))
  .map((file) => path.relative(root, file))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error(`No test files match ${filters.join(" ")}`);
  process.exit(1);
}
// bubblewrap and chromium (apt-get, minutes on a fresh machine) install while npm ci and the build run.
// The scripts never fail; a test that needs a missing program skips and says why.
const setupScripts = ["setup-bwrap.sh", "setup-chromium.sh"].filter((name) =>
  existsSync(path.join(root, "scripts", name)),
);
const systemSetup = background("bash", [
  "-c",
  setupScripts.map((name) => `bash ${JSON.stringify(path.join(root, "scripts", name))}`).join("; ") || "true",
]);

// better-sqlite3 compiles in the background (one core, about a minute) while lint, the compile of the
// tests and the build use the other; the tests wait for it.
const nativeAddon = ensureInstalled(console.error, { deferNative: true }).then(() =>
  console.error(`setup: better-sqlite3 ready after ${seconds(commandStarted)} s`),
);
console.error(`setup: dependencies ready after ${seconds(commandStarted)} s`);

// Lint first (fast, and the cheapest failure to read); `npm run format` fixes formatting.
console.error("checking the tree with biome (lint, format, import layering)");
const lint = spawnSync(
  process.execPath,
  [path.join(root, "node_modules", "@biomejs", "biome", "bin", "biome"), "check", "--error-on-warnings"],
  { cwd: root, stdio: "inherit" },
);
const lintStatus = lint.status ?? 1;

// The packages build while the apt installs finish. The harness's own tests import its sources (tsx),
// so they start while the packages build; the rest wait for the build. All tests wait for the apt
// installs, or a sandbox test would skip for want of bwrap instead of running.
let buildState = "building";
const build = ensureBuiltConcurrently().then(
  () => {
    buildState = "built";
    console.error(`setup: packages built after ${seconds(commandStarted)} s`);
  },
  (error) => {
    buildState = "failed";
    console.error(`setup: the build failed (${error.message}); only the harness's own tests run.`);
  },
);
// The test files and the sources they import, compiled once (plain `node` per process, not tsx's hooks).
const compile = await compileTests();
console.error(`compiled ${compile.compiled} of ${compile.files} TypeScript files for the tests`);
// The test files wait for the apt installs and better-sqlite3; Vitest (the web app's components, no
// database, no sandbox, no build) needs none of it, so it starts at once and uses the core the compile leaves.
let prerequisitesReady = false;
const prerequisites = Promise.all([systemSetup, nativeAddon]).then(([setup]) => {
  prerequisitesReady = true;
  process.stderr.write(setup.output);
});

// The run's Postgres test databases are dropped together at its end, not one by one as each test ends
// (packages/harness/src/testing/postgres.ts: each DROP DATABASE forces a checkpoint that stalls the
// other files' statements).
const databaseRun = randomBytes(4).toString("hex");
const env = {
  ...process.env,
  DEERFLOW_TEST: "1",
  DEERFLOW_TEST_COMPILED: "1",
  DEERFLOW_TEST_DATABASE_RUN: databaseRun,
};
if (process.stdout.isTTY && env.FORCE_COLOR === undefined && env.NO_COLOR === undefined) env.FORCE_COLOR = "1";

let lastTimes = {};
try {
  lastTimes = JSON.parse(readFileSync(TIMES_FILE, "utf8"));
} catch {
  // No earlier run on this machine: order by KNOWN_SLOW.
}
const expected = (name) =>
  lastTimes[name] ?? Math.max(0, ...Object.entries(KNOWN_SLOW).map(([key, s]) => (name.startsWith(key) ? s : 0)));
const concurrency = Number(process.env.DEERFLOW_TEST_CONCURRENCY) || availableParallelism() + 1;

/** node:test's tracking of asynchronous work without its costly half (scripts/test-preload.mjs). */
const PRELOAD = ["--import", pathToFileURL(path.join(root, "scripts", "test-preload.mjs")).href];

/** A file run alone, compiled (`--test-reporter=spec`; not under `--test`, which adds a relaying process). */
function fileJob(file) {
  return {
    name: file,
    command: [process.execPath, ...PRELOAD, "--test-reporter=spec", compiledPath(file)],
    cwd: root,
    needsBuild: !file.startsWith("packages/harness/"),
    files: [file],
  };
}

/**
 * A package's short test files, shared out into `count` processes of about equal expected time
 * (scripts/test-group.mjs): most of a short file's time is its process's start-up (tsx, langchain).
 */
function groupJobs(groupFiles, count, label) {
  const groups = Array.from({ length: Math.min(count, groupFiles.length) }, () => ({ files: [], seconds: 0 }));
  const byTime = [...groupFiles].sort((a, b) => expected(b) - expected(a) || a.localeCompare(b));
  for (const file of byTime) {
    const lightest = groups.reduce((min, group) => (group.seconds < min.seconds ? group : min));
    lightest.files.push(file);
    lightest.seconds += Math.max(expected(file), 1);
  }
  return groups.map((group, index) =>
    group.files.length === 1
      ? fileJob(group.files[0])
      : {
          name: `${label} group ${index + 1} of ${groups.length} (${group.files.length} files)`,
          command: [
            process.execPath,
            ...PRELOAD,
            "--test-reporter=spec",
            path.join("scripts", "test-group.mjs"),
            ...group.files.sort(),
          ],
          cwd: root,
          needsBuild: fileJob(group.files[0]).needsBuild,
          files: group.files,
          seconds: group.seconds,
        },
  );
}

const groupOf = (file) =>
  RUN_ALONE.includes(file) || expected(file) >= GROUP_UNDER_SECONDS
    ? undefined
    : GROUPED.find((group) => file.startsWith(group.prefix));
const jobs = [
  ...files.filter((file) => !groupOf(file)).map(fileJob),
  ...GROUPED.flatMap((group) =>
    groupJobs(
      files.filter((file) => groupOf(file) === group),
      group.perRunner * concurrency,
      group.label,
    ),
  ),
];
// The web app's component tests (*.spec.ts[x] under packages/web/test) run with Vitest in jsdom.
const web = path.join(root, "packages", "web");
if (
  existsSync(path.join(web, "package.json")) &&
  (filters.length === 0 ||
    filters.some(
      (filter) =>
        "packages/web/test".includes(filter) ||
        filter.includes("packages/web/test") ||
        filter === "web" ||
        filter === "spec",
    ))
) {
  jobs.push({
    name: "vitest",
    command: [process.execPath, path.join(root, "node_modules", "vitest", "vitest.mjs"), "run"],
    cwd: web,
    needsBuild: false,
    needsNothing: true,
    files: [],
  });
}
const jobSeconds = (job) => job.seconds ?? expected(job.name);
jobs.sort((a, b) => jobSeconds(b) - jobSeconds(a) || a.name.localeCompare(b.name));

console.error(
  `running ${files.length} test files${jobs.some((job) => job.name === "vitest") ? " and vitest" : ""} in ${jobs.length} processes, ${concurrency} at a time`,
);

/**
 * CPU seconds (user + system) of this process and of the children it has waited for, theirs included
 * (Linux: /proc/self/stat's utime, stime, cutime, cstime, in clock ticks of 1/100 s); undefined elsewhere.
 */
function cpuSeconds() {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    return ([11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0) / 100).toFixed(0);
  } catch {
    return undefined;
  }
}

const COUNTS = ["tests", "pass", "fail", "cancelled", "skipped", "todo"];
const totals = Object.fromEntries(COUNTS.map((key) => [key, 0]));
const failed = [];
/** Each process's time (the slowest are listed at the end), and each file's (remembered for the next run's order). */
const times = [];
const fileTimes = [];
/** Files that spent more than this many seconds outside their tests, listed at the end. */
const OUTSIDE_WARNING_SECONDS = 5;
const outsideTests = [];
const ansi = /\u001b\[[0-9;]*m/g;

/** Adds the counts a node:test run printed at its end (spec: "ℹ pass 3"; vitest: "Tests  3 passed"). */
function count(job, output) {
  const text = output.replace(ansi, "");
  if (job.name === "vitest") {
    const line = /^\s*Tests\s+(.*)$/m.exec(text)?.[1] ?? "";
    for (const [, n, word] of line.matchAll(/(\d+) (passed|failed|skipped|todo)/g)) {
      const key = { passed: "pass", failed: "fail", skipped: "skipped", todo: "todo" }[word];
      totals[key] += Number(n);
      totals.tests += Number(n);
    }
    return;
  }
  for (const key of COUNTS) {
    const match = new RegExp(`^ℹ ${key} (\\d+)$`, "m").exec(text);
    if (match) totals[key] += Number(match[1]);
  }
  // The run's duration less its top-level tests' and suites': time in file-level hooks, or a timer or
  // handle left open after the last test that kept the process alive.
  const run = Number(/^ℹ duration_ms ([\d.]+)$/m.exec(text)?.[1] ?? Number.NaN);
  const tests = [...text.matchAll(/^[✔✖▶﹣] .*\(([\d.]+)ms\)(?: # .*)?$/gm)].reduce(
    (sum, [, ms]) => sum + Number(ms),
    0,
  );
  const outside = (run - tests) / 1000;
  // A group's files load during its run, outside any test: only a file alone is checked.
  if (outside > OUTSIDE_WARNING_SECONDS && job.files.length <= 1) outsideTests.push([job.name, outside]);
}

/** A group's files with their suite durations, and the ones that failed (a group's spec output names each file). */
function groupResults(output) {
  const text = output.replace(ansi, "");
  return [...text.matchAll(/^([✔✖]) (packages\/\S+\.test\.ts) \(([\d.]+)ms\)$/gm)].map(([, mark, file, ms]) => ({
    file,
    seconds: Number(ms) / 1000,
    failed: mark === "✖",
  }));
}

async function runJob(job) {
  const [command, ...args] = job.command;
  const result = await background(command, args, { cwd: job.cwd, env });
  process.stdout.write(`\n── ${job.name} (${result.seconds.toFixed(1)} s)\n${result.output}`);
  count(job, result.output);
  if (job.files.length > 1) {
    const files = groupResults(result.output);
    for (const file of files) fileTimes.push([file.file, file.seconds]);
    const failedFiles = files.filter((file) => file.failed).map((file) => file.file);
    if (result.status !== 0) failed.push(...(failedFiles.length > 0 ? failedFiles : [job.name]));
  } else if (result.status !== 0) failed.push(job.name);
  times.push([job.name, result.seconds]);
  if (job.files.length <= 1) fileTimes.push([job.name, result.seconds]);
}

const testsStarted = Date.now();
const queue = [...jobs];
/**
 * The slowest job that can start now, or undefined: one that needs nothing (Vitest) starts at once; the
 * rest wait for the apt installs and better-sqlite3, and those that need the build for it too.
 */
function next() {
  const index = queue.findIndex(
    (job) => job.needsNothing || (prerequisitesReady && (!job.needsBuild || buildState !== "building")),
  );
  return index < 0 ? undefined : queue.splice(index, 1)[0];
}
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    while (queue.length > 0) {
      const job = next();
      if (!job) await (prerequisitesReady ? build : prerequisites);
      else if (job.needsBuild && buildState === "failed") {
        failed.push(job.name);
        process.stdout.write(`\n── ${job.name}: not run, the build failed\n`);
      } else await runJob(job);
    }
  }),
);
await build;
const { dropRunDatabases } = await import(pathToFileURL(compiledPath("packages/harness/src/testing/postgres.ts")).href);
const dropStarted = Date.now();
const dropped = await dropRunDatabases(databaseRun).catch((error) => {
  console.error(`the run's Postgres test databases were not all dropped: ${error.message}`);
  return 0;
});
if (dropped > 0) console.error(`dropped the run's ${dropped} Postgres test databases in ${seconds(dropStarted)} s`);

// Remember this run's times (the next run on this machine starts the slowest first).
try {
  mkdirSync(path.dirname(TIMES_FILE), { recursive: true });
  writeFileSync(TIMES_FILE, JSON.stringify({ ...lastTimes, ...Object.fromEntries(fileTimes) }, null, 1));
} catch {
  // A read-only node_modules only loses the ordering.
}

times.sort((a, b) => b[1] - a[1]);
console.log(`\nthe ten slowest (of ${times.length}, ${concurrency} at a time):`);
for (const [name, took] of times.slice(0, 10)) console.log(`${took.toFixed(1).padStart(7)} s  ${name}`);
console.log(
  `\n${COUNTS.map((key) => `${key} ${totals[key]}`).join(", ")}; ${seconds(testsStarted)} s from the first test file, ${seconds(commandStarted)} s in all (install, lint, build, tests)`,
);
const cpu = cpuSeconds();
if (cpu) console.log(`CPU: ${cpu} s (user and system, this command and every process it waited for)`);
if (outsideTests.length > 0) {
  console.log(
    `\nspent over ${OUTSIDE_WARNING_SECONDS} s outside their tests (file-level before/after hooks, or a timer or handle left open after the last test):`,
  );
  for (const [name, took] of outsideTests.sort((a, b) => b[1] - a[1]))
    console.log(`${took.toFixed(1).padStart(7)} s  ${name}`);
}
if (failed.length > 0) console.log(`failed files:\n${failed.map((name) => `  ${name}`).join("\n")}`);
if (lintStatus !== 0) {
  console.error(
    "lint failed (see the biome report before the tests): `npm run format` fixes formatting; the rest needs an edit.",
  );
}
process.exit(failed.length > 0 || lintStatus !== 0 ? 1 : 0);
