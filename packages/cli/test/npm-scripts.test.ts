import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

test("every command the README and the benchmarks name sets up a fresh clone before it runs", () => {
  const scripts = (
    JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }
  ).scripts;
  for (const name of ["serve", "demo", "start", "test", "bench"]) {
    const command = scripts[name] ?? "";
    // `node --import tsx ...` fails at once on a clone without node_modules: tsx is a dev dependency.
    const match = /^node (scripts\/[\w-]+\.mjs)\b/.exec(command);
    assert.ok(match, `npm run ${name} must start a plain-Node setup script, not "${command}"`);
    const source = readFileSync(path.join(root, match[1]!), "utf8");
    assert.match(source, /ensureInstalled\(/, `${match[1]} must install dependencies first`);
  }
});
