/**
 * `deerflow serve` as a user runs it: prints the URL, model and sandbox; refuses a public host without
 * keys; SIGTERM drains (a running run finishes within the grace period) and the process exits 0.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { createTempHome, fakeModelConfig, spawnServe, startFakeOpenAIServer } from "@deerflow/harness/testing";
import { Client } from "@langchain/langgraph-sdk";
import { gate, lastUserText, until } from "./helpers.js";
import { addUser, issueToken } from "../src/auth/accounts.js";
import { openSqliteUserStore } from "../src/auth/sqlite-users.js";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../cli/dist/bin/main.js");

const serve = (args: string[], env: Record<string, string>) => spawnServe(cli, args, { env });

test("serve prints URL, model and sandbox; SIGTERM lets a running run finish, then exits 0", async () => {
  const block = gate();
  const fake = await startFakeOpenAIServer({
    script: async (body) => {
      if (lastUserText(body) === "slow") await block.wait;
      return { content: "finished" };
    },
  });
  const home = createTempHome();
  const config = path.join(home.path, "config.yaml");
  writeFileSync(config, fakeModelConfig(fake.url));
  let child: ChildProcess | undefined;
  try {
    const started = serve(["--port", "0", "--config", config], { DEER_FLOW_HOME: home.path, DEER_FLOW_API_KEYS: "" });
    child = started.child;
    const url = await started.url();
    assert.match(started.out.stdout, /127\.0\.0\.1/);
    await until(() => /sandbox: local/.test(started.out.stderr), 5000, "sandbox line");
    assert.match(started.out.stderr, /model: fake \(openai\)/);
    assert.match(started.out.stderr, /web app: (open http:\/\/127\.0\.0\.1:\d+\/ in a browser|not built)/);
    const client = new Client({ apiUrl: url });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "lead_agent", {
      input: { messages: [{ role: "user", content: "slow" }] },
    });
    await until(() => fake.requests.length > 0, 10_000, "model call");
    child.kill("SIGTERM");
    await until(() => /draining/.test(started.out.stderr), 5000, "drain message");
    block.open();
    assert.equal(await started.exited, 0, started.out.stderr);
    assert.match(started.out.stderr, /stopped/);

    const again = serve(["--port", "0", "--config", config], { DEER_FLOW_HOME: home.path });
    child = again.child;
    const client2 = new Client({ apiUrl: await again.url() });
    assert.equal(
      (await client2.runs.get(thread.thread_id, run.run_id)).status,
      "success",
      "the run finished during the drain",
    );
    child.kill("SIGINT");
    assert.equal(await again.exited, 0);
  } finally {
    block.open();
    child?.kill("SIGKILL");
    await fake.close();
    home.cleanup();
  }
});

test("serve refuses a public host without API keys or accounts, and requires the key or a token when set", async () => {
  const home = createTempHome();
  let child: ChildProcess | undefined;
  try {
    const refused = serve(["--host", "0.0.0.0", "--port", "0"], { DEER_FLOW_HOME: home.path, DEER_FLOW_API_KEYS: "" });
    assert.equal(await refused.exited, 2);
    assert.match(refused.out.stderr, /Refusing to listen on 0\.0\.0\.0 without API keys/);

    const key = "a-long-enough-secret-key-123456";
    const keyed = serve(["--host", "0.0.0.0", "--port", "0"], { DEER_FLOW_HOME: home.path, DEER_FLOW_API_KEYS: key });
    child = keyed.child;
    const url = (await keyed.url()).replace("0.0.0.0", "127.0.0.1");
    await until(() => /API key required/.test(keyed.out.stderr), 5000, "auth line");
    assert.equal((await fetch(`${url}/threads/search`, { method: "POST", body: "{}" })).status, 401);
    assert.equal((await new Client({ apiUrl: url, apiKey: key }).threads.search()).length, 0);
    child.kill("SIGTERM");
    assert.equal(await keyed.exited, 0);

    // Accounts guard a public host too, once a user exists.
    const users = openSqliteUserStore(path.join(home.path, "checkpoints.sqlite"));
    const alice = await addUser(users, { name: "alice@example.com", admin: true });
    const token = (await issueToken(users, alice.id, "api")).token;
    await users.close();
    const accounts = serve(["--host", "0.0.0.0", "--port", "0"], { DEER_FLOW_HOME: home.path, DEER_FLOW_API_KEYS: "" });
    child = accounts.child;
    const accountsUrl = (await accounts.url()).replace("0.0.0.0", "127.0.0.1");
    await until(() => /auth: accounts \(1 user/.test(accounts.out.stderr), 5000, "auth line");
    assert.equal((await fetch(`${accountsUrl}/threads/search`, { method: "POST", body: "{}" })).status, 401);
    assert.equal((await new Client({ apiUrl: accountsUrl, apiKey: token }).threads.search()).length, 0);
    child.kill("SIGTERM");
    assert.equal(await accounts.exited, 0);
  } finally {
    child?.kill("SIGKILL");
    home.cleanup();
  }
});

test("a SIGKILLed server leaves no damage: the next start resumes the run it was executing", async () => {
  const block = gate();
  const fake = await startFakeOpenAIServer({
    script: async (body) => {
      if (lastUserText(body) === "slow" && !body.messages.some((message) => message.role === "assistant"))
        await block.wait;
      return { content: `echo: ${lastUserText(body)}` };
    },
  });
  const home = createTempHome();
  const config = path.join(home.path, "config.yaml");
  writeFileSync(config, fakeModelConfig(fake.url));
  let child: ChildProcess | undefined;
  try {
    const first = serve(["--port", "0", "--config", config], { DEER_FLOW_HOME: home.path, DEER_FLOW_API_KEYS: "" });
    child = first.child;
    const client = new Client({ apiUrl: await first.url() });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "lead_agent", {
      input: { messages: [{ role: "user", content: "slow" }] },
    });
    await until(() => fake.requests.length > 0, 10_000, "model call");
    child.kill("SIGKILL");
    await first.exited;
    block.open();

    const second = serve(["--port", "0", "--config", config], { DEER_FLOW_HOME: home.path, DEER_FLOW_API_KEYS: "" });
    child = second.child;
    const client2 = new Client({ apiUrl: await second.url() });
    const values = (await client2.runs.join(thread.thread_id, run.run_id)) as { messages: { content: string }[] };
    assert.deepEqual(
      values.messages.map((message) => message.content),
      ["slow", "echo: slow"],
      "resumed once, input not repeated",
    );
    assert.equal((await client2.runs.get(thread.thread_id, run.run_id)).status, "success");
    assert.match(second.out.stderr, /interrupted by a restart; resuming it/);
    child.kill("SIGTERM");
    assert.equal(await second.exited, 0);
  } finally {
    block.open();
    child?.kill("SIGKILL");
    await fake.close();
    home.cleanup();
  }
});

test("serve honours the CLI's thread lease: a run on a thread another process holds waits for it", async () => {
  const fake = await startFakeOpenAIServer({ script: async () => ({ content: "done" }) });
  const home = createTempHome();
  const config = path.join(home.path, "config.yaml");
  writeFileSync(config, fakeModelConfig(fake.url));
  const { openThreadLeases } = await import("@deerflow/harness");
  let child: ChildProcess | undefined;
  try {
    const started = serve(["--port", "0", "--config", config], { DEER_FLOW_HOME: home.path, DEER_FLOW_API_KEYS: "" });
    child = started.child;
    const client = new Client({ apiUrl: await started.url() });
    const thread = await client.threads.create();
    // Another process (as `deerflow run --thread T` would) holds the thread.
    const leases = openThreadLeases(path.join(home.path, "checkpoints.sqlite"));
    const lease = await leases.acquire(thread.thread_id);
    try {
      const run = await client.runs.create(thread.thread_id, "lead_agent", {
        input: { messages: [{ role: "user", content: "hi" }] },
      });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(fake.requests.length, 0, "no model call while another process holds the thread");
      assert.notEqual((await client.runs.get(thread.thread_id, run.run_id)).status, "success");
      lease.release();
      await client.runs.join(thread.thread_id, run.run_id);
      assert.equal((await client.runs.get(thread.thread_id, run.run_id)).status, "success");
      assert.equal(fake.requests.length, 1);
    } finally {
      lease.release();
      leases.close();
    }
  } finally {
    child?.kill("SIGKILL");
    await fake.close();
    home.cleanup();
  }
});
