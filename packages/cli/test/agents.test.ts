/**
 * `deerflow agents` as a user runs it: create an agent with a soul from stdin and settings, list and
 * show it, run it with `--agent` (its soul reaches the model), edit and clear a setting, delete it;
 * bad names, duplicates, unknown models and groups exit 2 saying what to do, a missing agent exits 1.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { createTempHome, startFakeOpenAIServer, type TempHome } from "@deerflow/harness/testing";
import { deerflow } from "./run-cli.js";

const dirs: TempHome[] = [];
after(() => dirs.forEach((dir) => dir.cleanup()));
function project(url = "http://127.0.0.1:9/v1"): string {
  const dir = createTempHome({ prefix: "df-cli-agents-" });
  dirs.push(dir);
  writeFileSync(
    path.join(dir.path, "config.yaml"),
    `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk, base_url: '${url}', max_retries: 0}\nsandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\n`,
  );
  return dir.path;
}

test("create, list, show, run with --agent, edit, delete", async () => {
  const server = await startFakeOpenAIServer({ script: () => ({ content: "Arr." }) });
  try {
    const cwd = project(server.url);
    const created = await deerflow(
      cwd,
      [
        "agents",
        "create",
        "Pirate",
        "--soul-file",
        "-",
        "--description",
        "Talks like a pirate",
        "--tool-groups",
        "web",
      ],
      { input: "You talk like a pirate.\n" },
    );
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stderr, /Created agent pirate/);
    const listed = await deerflow(cwd, ["agents", "list"]);
    assert.equal(listed.stdout, "pirate\tTalks like a pirate\n");
    const shown = JSON.parse((await deerflow(cwd, ["agents", "show", "pirate"])).stdout) as Record<string, unknown>;
    assert.deepEqual([shown.soul, shown.tool_groups], ["You talk like a pirate.\n", ["web"]]);

    const ran = await deerflow(cwd, ["run", "--agent", "pirate", "hello"]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.stdout.trim(), "Arr.");
    const system = JSON.stringify(server.requests.at(-1)!.messages[0]!.content);
    assert.match(system, /<soul>\\nYou talk like a pirate\.\\n<\/soul>/);

    const edited = await deerflow(cwd, [
      "agents",
      "edit",
      "pirate",
      "--soul",
      "You talk like a sailor.",
      "--clear",
      "tool_groups",
    ]);
    assert.equal(edited.code, 0, edited.stderr);
    const after = JSON.parse((await deerflow(cwd, ["agents", "show", "pirate"])).stdout) as Record<string, unknown>;
    assert.deepEqual(
      [after.soul, after.tool_groups, after.description],
      ["You talk like a sailor.", undefined, "Talks like a pirate"],
    );

    const deleted = await deerflow(cwd, ["agents", "delete", "pirate"]);
    assert.equal(deleted.code, 0, deleted.stderr);
    const gone = await deerflow(cwd, ["run", "--agent", "pirate", "hello"]);
    assert.equal(gone.code, 2);
    assert.match(gone.stderr, /Agent "pirate" does not exist\. Create it first \(deerflow agents create pirate/);
  } finally {
    await server.close();
  }
});

test("bad input: names, duplicates, models, groups, missing agents", async () => {
  const cwd = project();
  const bad = await deerflow(cwd, ["agents", "create", "no/slash"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Agent name "no\/slash" is not valid/);
  assert.equal((await deerflow(cwd, ["agents", "create", "dup"])).code, 0);
  const dup = await deerflow(cwd, ["agents", "create", "DUP"]);
  assert.equal(dup.code, 2);
  assert.match(dup.stderr, /Agent "dup" already exists/);
  const model = await deerflow(cwd, ["agents", "edit", "dup", "--model", "gpt-9"]);
  assert.equal(model.code, 2);
  assert.match(model.stderr, /gpt-9/);
  const groups = await deerflow(cwd, ["agents", "edit", "dup", "--tool-groups", "lasers"]);
  assert.equal(groups.code, 2);
  assert.match(groups.stderr, /Unknown tool group lasers\. Known groups: file:read/);
  const nothing = await deerflow(cwd, ["agents", "edit", "dup"]);
  assert.equal(nothing.code, 2);
  const missing = await deerflow(cwd, ["agents", "show", "ghost"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /No agent named "ghost"/);
});
