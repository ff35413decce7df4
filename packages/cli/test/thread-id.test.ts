/**
 * `--thread` takes the harness's one thread id rule. The CLI used to refuse ids with a "." (which the
 * server and the harness accept), so a thread started over HTTP as "run.2" could not be continued here.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { writeFileSync } from "node:fs";
import { after, test } from "node:test";
import { createTempHome } from "@deerflow/harness/testing";
import { deerflow } from "./run-cli.js";

const home = createTempHome({ prefix: "df-thread-id-" });
after(() => home.cleanup());
writeFileSync(path.join(home.path, "config.yaml"), "sandbox: {use: local}\nmemory: {enabled: false}\n");

test("run --thread accepts a '.' in the id and refuses '..' with the rule", async () => {
  const dotted = await deerflow(home.path, ["run", "--thread", "run.2", "Say hello"]);
  assert.equal(dotted.code, 0, dotted.stderr);
  const history = await deerflow(home.path, ["history", "--thread", "run.2"]);
  assert.match(history.stdout, /Say hello/);

  const refused = await deerflow(home.path, ["run", "--thread", "a..b", "Say hello"]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /Thread id "a\.\.b" is not valid: use 1-128 letters.*no "\.\."/);
});
