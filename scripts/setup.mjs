// Makes a fresh clone runnable: installs dependencies when node_modules is missing or older than the
// lock file, and builds the packages when a source file is newer than its build. Plain Node, no
// dependencies, so it runs before anything is installed.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function run(command, args, options = {}) {
  execFileSync(command, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"], ...options });
}

function newestMtime(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** better-sqlite3's compiled addon: the one dependency with an install script (it compiles SQLite). */
const NATIVE_ADDON = path.join(root, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node");

/**
 * Present when the test command compiled better-sqlite3 with SQLite at `-O1`: half the compile time of
 * the package's own `-O3` (about 30 s of one core instead of 60, the critical path before the first
 * test), at a runtime cost the tests do not notice. `ensureReleaseNative` (the benchmarks) rebuilds it.
 */
const TEST_BUILD_MARK = path.join(root, "node_modules", "better-sqlite3", "build", "deerflow-test-build");

/**
 * Installs dependencies when needed, and compiles better-sqlite3 when its addon is missing (about a
 * minute of one core). With `deferNative` (the test command), `npm ci` skips install scripts and the
 * returned promise compiles better-sqlite3 in the background, with SQLite at `-O1` (TEST_BUILD_MARK),
 * so the packages build beside it instead of after it; it never rejects (a failed compile is said, and
 * the tests that need SQLite fail).
 */
export function ensureInstalled(log = console.error, { deferNative = false } = {}) {
  const marker = path.join(root, "node_modules", ".package-lock.json");
  const lock = path.join(root, "package-lock.json");
  if (!existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs) {
    log(
      deferNative
        ? "setup: installing dependencies..."
        : "setup: installing dependencies (first run compiles better-sqlite3, about a minute)...",
    );
    run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error", ...(deferNative ? ["--ignore-scripts"] : [])]);
  }
  if (existsSync(NATIVE_ADDON)) return Promise.resolve();
  if (!deferNative) {
    run("npm", ["rebuild", "better-sqlite3", "--loglevel=error"]);
    return Promise.resolve();
  }
  log("setup: compiling better-sqlite3 in the background, SQLite at -O1 for the tests (about 30 s)...");
  // gyp's Makefile appends $CFLAGS after the package's own flags, so this -O1 wins over its -O3 (C only;
  // the addon's C++ keeps its flags).
  const env = { ...process.env, CFLAGS: `${process.env.CFLAGS ?? ""} -O1`.trim() };
  return npmAsync(["rebuild", "better-sqlite3", "--loglevel=error"], { env })
    .then(() => writeFileSync(TEST_BUILD_MARK, "SQLite compiled at -O1 by the test command (scripts/setup.mjs)\n"))
    .catch((error) =>
      log(`setup: compiling better-sqlite3 failed (${error.message}); the tests that use SQLite will fail.`),
    );
}

/**
 * For the benchmarks: when the test command compiled SQLite at -O1 (TEST_BUILD_MARK), compiles it again
 * with the package's own flags (about a minute), so figures are never taken on the test build.
 */
export function ensureReleaseNative(log = console.error) {
  if (!existsSync(TEST_BUILD_MARK)) return;
  log("setup: better-sqlite3 was compiled for the tests (SQLite at -O1); compiling it at -O3 for the benchmarks...");
  run("npm", ["rebuild", "better-sqlite3", "--loglevel=error"]);
  rmSync(TEST_BUILD_MARK, { force: true });
}

/** True when a TypeScript package's sources are newer than its build. */
function packagesStale() {
  return ["harness", "server", "cli"].some((name) => {
    const pkg = path.join(root, "packages", name);
    return newestMtime(path.join(pkg, "src")) > newestMtime(path.join(pkg, "dist"));
  });
}

/** Builds the packages (and the web app) when their sources changed since the last build. */
export function ensureBuilt(log = console.error) {
  const stale = packagesStale();
  if (stale) {
    log("setup: building packages...");
    run("npm", ["run", "build", "--silent"]);
  }
  ensureWebBuilt(log);
}

/** True when the web app exists and its sources are newer than its build. */
function webStale() {
  const web = path.join(root, "packages", "web");
  if (!existsSync(path.join(web, "package.json"))) return false;
  const sources = Math.max(
    newestMtime(path.join(web, "src")),
    newestMtime(path.join(web, "public")),
    statSync(path.join(web, "index.html")).mtimeMs,
  );
  return !existsSync(path.join(web, "dist", "index.html")) || sources > newestMtime(path.join(web, "dist"));
}

/** Builds the web app (packages/web/dist, served by `deerflow serve` at /) when its sources changed. */
export function ensureWebBuilt(log = console.error) {
  if (!webStale()) return;
  log("setup: building the web app...");
  run("npm", ["run", "build", "--silent", "-w", "@deerflow/web"]);
}

/** Runs `npm ...args` in the root without blocking; resolves when it exits, rejects when it fails. */
function npmAsync(args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", args, { cwd: root, stdio: ["ignore", "inherit", "inherit"], ...options });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`npm ${args.join(" ")} exited with ${code}`)),
    );
  });
}

/**
 * `ensureBuilt`, with the web app's Vite build running beside the TypeScript packages' chain (harness,
 * then server, then cli): the web app imports none of them, and tsc and Vite are each mostly one core,
 * so on a fresh clone the two overlap instead of queueing (the test command uses this).
 */
export async function ensureBuiltConcurrently(log = console.error) {
  const builds = [];
  if (packagesStale()) {
    log("setup: building packages (harness, server, cli)...");
    builds.push(
      (async () => {
        for (const name of ["harness", "server", "cli"])
          await npmAsync(["run", "build", "--silent", "-w", `@deerflow/${name}`]);
      })(),
    );
  }
  if (webStale()) {
    log("setup: building the web app...");
    builds.push(npmAsync(["run", "build", "--silent", "-w", "@deerflow/web"]));
  }
  await Promise.all(builds);
}
