// Runs several test files in one process (scripts/test.mjs starts it as
// `node --import tsx --test-reporter=spec scripts/test-group.mjs file...`), so small files share one
// start-up (Node, tsx's loader, langchain) instead of paying it each. Each file becomes a suite named
// by its path: its tests and its top-level before/after hooks stay its own, and the files run one after
// another, in the order given. Only files that leave no process-wide state behind belong in a group
// (docs/testing.md says which stay alone).
import path from "node:path";
import { describe } from "node:test";
import { pathToFileURL } from "node:url";

for (const file of process.argv.slice(2)) describe(file, () => import(pathToFileURL(path.resolve(file)).href));
