// The test command (`npm test`, called by .ci/run): sets up a fresh clone (dependencies, bubblewrap
// for the sandbox tests, chromium for the web e2e tests, build), checks the whole tree with Biome (lint,
// formatting, the import layering; about a second), then runs every *.test.ts under packages/ with
// node:test through tsx, then the web app's component tests with Vitest. A lint failure does not hide the
// test results: the tests still run, and the command exits non-zero at the end.
// Extra arguments are test file paths or substrings to select files ("web" also selects the Vitest run).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { ensureBuilt, ensureInstalled, root } from "./setup.mjs";

ensureInstalled();

// Lint first (fast, and the cheapest failure to read); `npm run format` fixes formatting.
console.error("checking the tree with biome (lint, format, import layering)");
const lint = spawnSync(
  process.execPath,
  [path.join(root, "node_modules", "@biomejs", "biome", "bin", "biome"), "check", "--error-on-warnings"],
  {
    cwd: root,
    stdio: "inherit",
  },
);
const lintStatus = lint.status ?? 1;
if (existsSync(path.join(root, "scripts", "setup-bwrap.sh"))) {
  try {
    execFileSync("bash", [path.join(root, "scripts", "setup-bwrap.sh")], { stdio: "inherit" });
  } catch {
    console.error("setup: bubblewrap is not available; sandbox tests that need it will skip and say why.");
  }
}
if (existsSync(path.join(root, "scripts", "setup-chromium.sh"))) {
  try {
    execFileSync("bash", [path.join(root, "scripts", "setup-chromium.sh")], { stdio: "inherit" });
  } catch {
    console.error("setup: chromium is not available; the web app's end-to-end tests will skip and say why.");
  }
}
ensureBuilt();

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
console.error(`running ${files.length} test files`);
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", ...files], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, DEERFLOW_TEST: "1" },
});

// The web app's component tests (*.spec.ts[x] under packages/web/test) run with Vitest in jsdom.
let webStatus = 0;
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
  console.error("running the web app's component tests (vitest)");
  const vitest = spawnSync(process.execPath, [path.join(root, "node_modules", "vitest", "vitest.mjs"), "run"], {
    cwd: web,
    stdio: "inherit",
    env: { ...process.env, DEERFLOW_TEST: "1" },
  });
  webStatus = vitest.status ?? 1;
}
if (lintStatus !== 0) {
  console.error(
    "lint failed (see the biome report before the tests): `npm run format` fixes formatting; the rest needs an edit.",
  );
}
process.exit((result.status ?? 1) || webStatus || lintStatus);
