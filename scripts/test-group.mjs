// Runs several test files in one process (scripts/test.mjs starts it as
// `node --test-reporter=spec scripts/test-group.mjs file...` with DEERFLOW_TEST_COMPILED=1), so small
// files share one start-up (Node and langchain) instead of paying it each. Each file becomes a suite
// named by its path: its tests and its top-level before/after hooks stay its own, and the files run one
// after another, in the order given. Only files that leave no process-wide state behind belong in a
// group (docs/testing.md says which stay alone). With DEERFLOW_TEST_COMPILED=1 each file is imported
// from its compiled copy (scripts/compile-tests.mjs); without it, run the group under `--import tsx`.
import path from "node:path";
import { describe } from "node:test";
import { pathToFileURL } from "node:url";
import { compiledPath } from "./compile-tests.mjs";

const compiled = process.env.DEERFLOW_TEST_COMPILED === "1";
for (const file of process.argv.slice(2))
  describe(file, () => import(pathToFileURL(compiled ? compiledPath(file) : path.resolve(file)).href));
