/**
 * `deerflow cron` as an operator uses it: a cron added from the shell (its id alone on stdout), listed,
 * refused with the reason and an example when its schedule or time zone is wrong, seen by the SDK on
 * `deerflow serve` (whose start-up says how many crons it fires), and removed.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, type TestContext, test } from "node:test";
import { createTempHome } from "@deerflow/harness/testing";
import { Client } from "@langchain/langgraph-sdk";
import { CLI, deerflow, startDeerflow } from "./run-cli.js";

before(() => {
  assert.ok(existsSync(CLI), `build the CLI first (npm run build): ${CLI} is missing`);
});

const CONFIG = "memory: {enabled: false}\ntitle: {enabled: false}\nsandbox: {use: local}\n";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function home(t: TestContext): string {
  const dir = createTempHome({ prefix: "df-cron-" });
  writeFileSync(path.join(dir.path, "config.yaml"), CONFIG);
  t.after(() => dir.cleanup());
  return dir.path;
}

test("cron add / list / remove, and deerflow serve fires what was added", async (t) => {
  const cwd = home(t);
  const added = await deerflow(cwd, [
    "cron",
    "add",
    "--schedule",
    "0 9 * * 1-5",
    "--timezone",
    "Asia/Shanghai",
    "Summarise the overnight alerts",
  ]);
  assert.equal(added.code, 0, added.stderr);
  const cronId = added.stdout.trim();
  assert.match(cronId, UUID);
  assert.match(added.stderr, /next run \d{4}-\d\d-\d\dT01:00:00/);

  const listed = await deerflow(cwd, ["cron", "list"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(
    listed.stdout,
    new RegExp(`${cronId}\\s+"0 9 \\* \\* 1-5" Asia/Shanghai\\s+next .*Summarise the overnight alerts`),
  );
  const json = JSON.parse((await deerflow(cwd, ["cron", "list", "--json"])).stdout) as Array<{ cron_id: string }>;
  assert.deepEqual(
    json.map((cron) => cron.cron_id),
    [cronId],
  );

  const server = startDeerflow(cwd, ["serve", "--port", "0"]);
  t.after(async () => {
    server.child.kill("SIGTERM");
    await server.exited;
  });
  await server.waitForStderr(/crons: /);
  assert.match(server.stderr, /crons: 1 scheduled \(fired by this process/);
  const url = /listening on (http:\/\/\S+)/.exec(server.stdout)?.[1];
  const client = new Client({ apiUrl: url! });
  const [seen] = await client.crons.search();
  assert.equal(seen?.cron_id, cronId);
  assert.equal(seen?.schedule, "0 9 * * 1-5");

  const removed = await deerflow(cwd, ["cron", "remove", cronId]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(await client.crons.count(), 0);
  const again = await deerflow(cwd, ["cron", "remove", cronId]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /No cron/);
  assert.match((await deerflow(cwd, ["cron", "list"])).stderr, /No crons/);
});

test("cron add refuses a bad schedule or time zone with the reason and an example, and stores nothing", async (t) => {
  const cwd = home(t);
  const sixFields = await deerflow(cwd, ["cron", "add", "--schedule", "0 0 9 * * *", "task"]);
  assert.equal(sixFields.code, 2);
  assert.match(sixFields.stderr, /6 fields.*"0 9 \* \* 1-5"/);
  const zone = await deerflow(cwd, ["cron", "add", "--schedule", "0 9 * * *", "--timezone", "Beijing", "task"]);
  assert.equal(zone.code, 2);
  assert.match(zone.stderr, /"Beijing".*IANA.*Asia\/Shanghai/);
  const missing = await deerflow(cwd, ["cron", "add", "task"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--schedule/);
  assert.match((await deerflow(cwd, ["cron", "list"])).stderr, /No crons/);
});

test("cron add --deliver-to: stored with a configured channel, refused (naming it) without one", async (t) => {
  const cwd = home(t);
  const unconfigured = await deerflow(cwd, [
    "cron",
    "add",
    "--schedule",
    "0 9 * * *",
    "--deliver-to",
    "telegram:123",
    "task",
  ]);
  assert.equal(unconfigured.code, 2);
  assert.match(unconfigured.stderr, /telegram channel is not configured.*channels\.telegram/);
  const malformed = await deerflow(cwd, ["cron", "add", "--schedule", "0 9 * * *", "--deliver-to", "telegram", "task"]);
  assert.equal(malformed.code, 2);
  assert.match(malformed.stderr, /telegram:<chat id>/);

  writeFileSync(
    path.join(cwd, "config.yaml"),
    `${CONFIG}channels:\n  telegram: {bot_token: '123:x', allowed_users: [1]}\n`,
  );
  const added = await deerflow(cwd, ["cron", "add", "--schedule", "0 9 * * *", "--deliver-to", "telegram:123", "task"]);
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stderr, /answer goes to telegram 123/);
  const [cron] = JSON.parse((await deerflow(cwd, ["cron", "list", "--json"])).stdout) as Array<{ deliver_to: unknown }>;
  assert.deepEqual(cron!.deliver_to, { channel: "telegram", target: "123" });
});
