/**
 * `deerflow users` as an operator uses it: accounts created from the shell beside a running
 * `deerflow serve`, their tokens captured with `| tail -1` and used against the server, listed without
 * secrets, revoked by prefix, and a user removed with everything they own. Also on a terminal (the
 * confirmation and the unechoed password) and on Postgres.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, type TestContext, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createTempHome, testDatabase } from "@deerflow/harness/testing";
import Database from "better-sqlite3";
import pg from "pg";
import { ptyUnavailable, startOnTerminal } from "./pty.js";
import { CLI, deerflow, startDeerflow } from "./run-cli.js";

before(() => {
  assert.ok(existsSync(CLI), `build the CLI first (npm run build): ${CLI} is missing`);
});

const MEMORY_FIXTURE = fileURLToPath(new URL("../../harness/src/memory/fixtures/memory.v1.json", import.meta.url));
const TOKEN = /^df[ps]_[A-Za-z0-9_-]{43}$/;
const CONFIG = "memory: {enabled: false}\ntitle: {enabled: false}\nsandbox: {use: local}\n";

/** The token a `users add` / `users token` printed: the last line of stdout, alone. */
function lastLine(stdout: string): string {
  const lines = stdout.trimEnd().split("\n");
  return lines[lines.length - 1]!;
}

/** A temp home with the config above; removed after the test. */
function home(t: TestContext) {
  const dir = createTempHome({ prefix: "df-users-" });
  writeFileSync(path.join(dir.path, "config.yaml"), CONFIG);
  t.after(() => dir.cleanup());
  return dir;
}

/** `deerflow serve --port 0` in `cwd`; resolves with its URL once it listens, stopped after the test. */
async function serve(t: TestContext, cwd: string, env?: Record<string, string>): Promise<string> {
  const server = startDeerflow(cwd, ["serve", "--port", "0"], { env });
  t.after(async () => {
    server.child.kill("SIGTERM");
    await server.exited;
  });
  await server.waitForStderr(/data: /);
  const url = /listening on (http:\/\/\S+)/.exec(server.stdout)?.[1];
  assert.ok(url, server.stdout);
  return url;
}

test("users add / list / token / revoke / remove against a running server", async (t) => {
  const dir = home(t);
  const cwd = dir.path;
  // The server runs from before accounts to the end; its open API makes a thread the first admin inherits.
  const url = await serve(t, cwd);
  const call = (route: string, key?: string, init: RequestInit = {}) =>
    fetch(`${url}${route}`, {
      method: "POST",
      ...init,
      headers: { "content-type": "application/json", ...(key ? { "x-api-key": key } : {}), ...init.headers },
      body: init.body ?? (init.method === "GET" ? undefined : "{}"),
    });
  const search = async (key?: string) => {
    const response = await call("/threads/search", key);
    return {
      status: response.status,
      ids: response.ok ? ((await response.json()) as { thread_id: string }[]).map((row) => row.thread_id) : [],
    };
  };
  const earlyThread = ((await (await call("/threads")).json()) as { thread_id: string }).thread_id;
  assert.deepEqual((await search()).ids, [earlyThread], "no accounts yet: the server is open");

  // The home's memory from before accounts: the first admin takes it over too.
  const memory = readFileSync(MEMORY_FIXTURE, "utf8");
  writeFileSync(path.join(cwd, ".deer-flow", "memory.json"), memory);

  const alice = await deerflow(cwd, ["users", "add", "alice", "--admin"]);
  assert.equal(alice.code, 0, alice.stderr);
  const aliceToken = lastLine(alice.stdout);
  assert.match(aliceToken, TOKEN);
  assert.match(alice.stderr, /first admin: the home's existing threads and memory are now theirs/);
  assert.match(alice.stderr, /the home's memory is now alice's/);
  assert.ok(!existsSync(path.join(cwd, ".deer-flow", "memory.json")), "the local memory moved");
  const bob = await deerflow(cwd, ["users", "add", "bob", "--password-stdin"], { input: "bob-password-1\n" });
  assert.equal(bob.code, 0, bob.stderr);
  const bobToken = lastLine(bob.stdout);
  assert.match(bobToken, TOKEN);
  assert.notEqual(bobToken, aliceToken);

  const taken = await deerflow(cwd, ["users", "add", "BOB"]);
  assert.equal(taken.code, 1);
  assert.match(taken.stderr, /A user named "BOB" already exists/);
  const badName = await deerflow(cwd, ["users", "add", "bob smith"]);
  assert.equal(badName.code, 2);
  assert.match(badName.stderr, /is not a valid user name/);
  const weak = await deerflow(cwd, ["users", "add", "carol", "--password-stdin"], { input: "short\n" });
  assert.equal(weak.code, 2);
  assert.match(weak.stderr, /at least 8 characters/);

  // A running server notices the first user within a second; from then on every request needs a key.
  while ((await search()).status !== 401) await sleep(50);
  assert.equal((await search("dfp_not-a-real-token-at-all-but-long-enough-xx")).status, 401);
  assert.deepEqual(await search(aliceToken), { status: 200, ids: [earlyThread] }, "alice inherited the early thread");
  assert.deepEqual(await search(bobToken), { status: 200, ids: [] });
  const signIn = await call("/api/v1/auth/login/local", undefined, {
    body: JSON.stringify({ username: "bob", password: "bob-password-1" }),
  });
  assert.equal(signIn.status, 200, "the password from stdin signs bob in");

  // A further token, named; the listing shows prefixes and the name, never a token.
  const laptop = await deerflow(cwd, ["users", "token", "bob", "--name", "laptop"]);
  assert.equal(laptop.code, 0, laptop.stderr);
  const laptopToken = lastLine(laptop.stdout);
  assert.match(laptopToken, TOKEN);
  assert.equal((await search(laptopToken)).status, 200);
  const unknown = await deerflow(cwd, ["users", "token", "nobody"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /No user named "nobody"/);

  const list = await deerflow(cwd, ["users", "list"]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^alice {2}admin {2}tokens only {2}created .* {2}1 API token, 0 sessions$/m);
  assert.match(list.stdout, /^bob {2}user {2}password {2}created .* {2}2 API tokens, 1 session$/m);
  assert.match(list.stdout, new RegExp(`^  ${laptopToken.slice(0, 12)} .*laptop$`, "m"));
  const json = await deerflow(cwd, ["users", "list", "--json"]);
  assert.equal(json.code, 0, json.stderr);
  const listed = JSON.parse(json.stdout) as { users: { name: string; tokens: { prefix: string }[] }[] };
  assert.deepEqual(
    listed.users.map((user) => [user.name, user.tokens.map((token) => token.prefix)]),
    [
      ["alice", [aliceToken.slice(0, 12)]],
      ["bob", [bobToken.slice(0, 12), laptopToken.slice(0, 12)]],
    ],
  );
  const aliceId = (listed.users[0] as unknown as { id: string }).id;
  assert.equal(readFileSync(path.join(cwd, ".deer-flow", "users", aliceId, "memory.json"), "utf8"), memory);
  for (const token of [aliceToken, bobToken, laptopToken])
    for (const output of [list.stdout, json.stdout]) assert.ok(!output.includes(token), "no listing shows a token");
  assert.doesNotMatch(json.stdout, /hash/);

  // Revoking by the shown prefix: that token stops working, the others do not.
  const tooShort = await deerflow(cwd, ["users", "revoke", "dfp_abc"]);
  assert.equal(tooShort.code, 2);
  assert.match(tooShort.stderr, /at least 8 characters/);
  const none = await deerflow(cwd, ["users", "revoke", "dfp_########"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /No token starts with "dfp_########"/);
  const revoked = await deerflow(cwd, ["users", "revoke", laptopToken.slice(0, 12)]);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal(revoked.stdout, `Revoked 1 token: ${laptopToken.slice(0, 12)} (bob, laptop)\n`);
  assert.equal((await search(laptopToken)).status, 401);
  assert.equal((await search(bobToken)).status, 200);

  // bob's thread with a run (checkpoints) and an upload (files); alice's thread beside it.
  const bobThread = ((await (await call("/threads", bobToken)).json()) as { thread_id: string }).thread_id;
  const run = await call(`/threads/${bobThread}/runs/wait`, bobToken, {
    body: JSON.stringify({ assistant_id: "lead_agent", input: { messages: [{ role: "user", content: "hi" }] } }),
  });
  assert.equal(run.status, 200, await run.text());
  const form = new FormData();
  form.append("files", new Blob(["notes"]), "notes.txt");
  const upload = await fetch(`${url}/threads/${bobThread}/uploads`, {
    method: "POST",
    headers: { "x-api-key": bobToken },
    body: form,
  });
  assert.equal(upload.status, 200, await upload.text());
  const bobFiles = path.join(cwd, ".deer-flow", "threads", bobThread);
  assert.ok(existsSync(bobFiles));
  const aliceThread = ((await (await call("/threads", aliceToken)).json()) as { thread_id: string }).thread_id;

  const database = path.join(cwd, ".deer-flow", "checkpoints.sqlite");
  const rowsOf = (threadId: string) => {
    const db = new Database(database, { readonly: true });
    try {
      const count = (sql: string) => (db.prepare(sql).get(threadId) as { n: number }).n;
      return {
        threads: count("SELECT count(*) AS n FROM server_threads WHERE thread_id = ?"),
        runs: count("SELECT count(*) AS n FROM server_runs WHERE thread_id = ?"),
        checkpoints: count("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ?"),
      };
    } finally {
      db.close();
    }
  };
  assert.ok(rowsOf(bobThread).checkpoints > 0, "bob's run left checkpoints");

  // The database holds no token (nor password) in the clear: only hashes and the shown prefixes.
  const files = readdirSync(path.dirname(database)).filter((name) => name.startsWith("checkpoints.sqlite"));
  for (const file of files) {
    const bytes = readFileSync(path.join(path.dirname(database), file));
    for (const secret of [aliceToken, bobToken, laptopToken, "bob-password-1"])
      assert.equal(bytes.indexOf(secret), -1, `${file} holds a secret in the clear`);
  }

  const refused = await deerflow(cwd, ["users", "remove", "bob"]);
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /Refusing to remove bob, their API tokens and their 1 thread .*stdin is not a terminal\. Pass --yes/,
  );
  assert.equal((await search(bobToken)).status, 200, "nothing was removed");

  const removed = await deerflow(cwd, ["users", "remove", "bob", "--yes"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stderr, /Removed bob with 1 thread\./);
  assert.equal((await search(bobToken)).status, 401);
  assert.deepEqual(rowsOf(bobThread), { threads: 0, runs: 0, checkpoints: 0 });
  assert.ok(!existsSync(bobFiles), "bob's files are gone");
  assert.deepEqual(rowsOf(aliceThread).threads, 1);
  assert.equal((await call(`/threads/${aliceThread}`, aliceToken, { method: "GET" })).status, 200);
  assert.doesNotMatch((await deerflow(cwd, ["users", "list"])).stdout, /^bob/m);
  const again = await deerflow(cwd, ["users", "remove", "bob", "--yes"]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /No user named "bob"/);
});

test("users: flags that do not apply, and a missing password on stdin, are refused", async (t) => {
  const dir = home(t);
  const misplaced = await deerflow(dir.path, ["users", "remove", "bob", "--admin"]);
  assert.equal(misplaced.code, 2);
  assert.match(misplaced.stderr, /--admin does not apply to deerflow users remove/);
  const empty = await deerflow(dir.path, ["users", "add", "bob", "--password-stdin"], { input: "" });
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /--password-stdin found no password on stdin/);
  assert.match((await deerflow(dir.path, ["users"])).stdout, /No users yet/);
});

test("users: an unreachable Postgres is named with the fix", async (t) => {
  const dir = home(t);
  writeFileSync(path.join(dir.path, "config.yaml"), "database: {backend: postgres}\n");
  const result = await deerflow(dir.path, ["users", "list"], {
    env: { DATABASE_URL: "postgres://root@127.0.0.1:1/none" },
  });
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /Cannot reach Postgres at postgres:\/\/root@127\.0\.0\.1:1\/none .*Start the database or fix database\.url/,
  );
});

/** Resolves once `read()` matches `pattern` (stderr of a pty run goes to a file). */
async function until(read: () => string, pattern: RegExp): Promise<void> {
  while (!pattern.test(read())) await sleep(20);
}

test("on a terminal, remove asks for the name and add reads the password without echo", async (t) => {
  const reason = ptyUnavailable();
  if (reason) {
    t.skip(reason);
    return;
  }
  const dir = home(t);
  const add = startOnTerminal(dir.path, ["users", "add", "carol", "--password-stdin"]);
  await until(add.stderr, /Password for carol: $/);
  add.type("carol-secret-9\r");
  await until(add.stderr, /Password again: $/);
  add.type("carol-secret-9\r");
  assert.equal(await add.exited, 0, add.stderr());
  assert.match(lastLine(add.output.replace(/\r/g, "")), TOKEN);
  assert.ok(!add.output.includes("carol-secret-9"), "the password is not echoed");
  const listed = JSON.parse((await deerflow(dir.path, ["users", "list", "--json"])).stdout);
  assert.equal(listed.users[0].has_password, true);

  const wrong = startOnTerminal(dir.path, ["users", "remove", "carol"]);
  await until(wrong.stderr, /Type the user name to confirm: $/);
  wrong.type("carl\r");
  assert.equal(await wrong.exited, 1);
  assert.match(wrong.stderr(), /Not removed: the name did not match/);

  const right = startOnTerminal(dir.path, ["users", "remove", "carol"]);
  await until(
    right.stderr,
    /This removes carol, their API tokens and their 0 threads .*\nType the user name to confirm: $/,
  );
  right.type("carol\r");
  assert.equal(await right.exited, 0, right.stderr());
  assert.match((await deerflow(dir.path, ["users", "list"])).stdout, /No users yet/);
});

test("users add, list, revoke and remove on Postgres", async (t) => {
  const db = await testDatabase();
  if ("skip" in db) {
    t.skip(db.skip);
    return;
  }
  t.after(() => db.drop());
  const dir = home(t);
  writeFileSync(path.join(dir.path, "config.yaml"), `${CONFIG}database: {backend: postgres}\n`);
  const env = { DATABASE_URL: db.url };
  const alice = await deerflow(dir.path, ["users", "add", "alice", "--admin"], { env });
  assert.equal(alice.code, 0, alice.stderr);
  const aliceToken = lastLine(alice.stdout);
  const bob = await deerflow(dir.path, ["users", "add", "bob"], { env });
  assert.equal(bob.code, 0, bob.stderr);
  const bobToken = lastLine(bob.stdout);
  assert.match(bobToken, TOKEN);
  const listed = JSON.parse((await deerflow(dir.path, ["users", "list", "--json"], { env })).stdout);
  assert.deepEqual(
    listed.users.map((user: { name: string; admin: boolean }) => [user.name, user.admin]),
    [
      ["alice", true],
      ["bob", false],
    ],
  );

  const extra = await deerflow(dir.path, ["users", "token", "bob"], { env });
  assert.equal(extra.code, 0, extra.stderr);
  const revoked = await deerflow(dir.path, ["users", "revoke", lastLine(extra.stdout).slice(0, 12)], { env });
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal(revoked.stdout, `Revoked 1 token: ${lastLine(extra.stdout).slice(0, 12)} (bob)\n`);

  const url = await serve(t, dir.path, env);
  const newThread = async (key: string) => {
    const response = await fetch(`${url}/threads`, { method: "POST", headers: { "x-api-key": key }, body: "{}" });
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { thread_id: string }).thread_id;
  };
  const bobThread = await newThread(bobToken);
  const aliceThread = await newThread(aliceToken);

  const removed = await deerflow(dir.path, ["users", "remove", "bob", "--yes"], { env });
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stderr, /Removed bob with 1 thread\./);
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  try {
    const threads = await sql.query("SELECT thread_id FROM server_threads ORDER BY thread_id");
    assert.deepEqual(
      threads.rows.map((row) => row.thread_id),
      [aliceThread],
      `bob's thread ${bobThread} is gone, alice's stays`,
    );
    const tokens = await sql.query("SELECT prefix FROM deerflow_tokens");
    assert.deepEqual(
      tokens.rows.map((row) => row.prefix),
      [aliceToken.slice(0, 12)],
    );
  } finally {
    await sql.end();
  }
});
