/**
 * Test kit for the cluster tests: real `deerflow serve` processes (the built CLI) on an OS-chosen port,
 * each with an SDK Client once it listens, and their teardown. Several processes on one database are
 * what these tests are about, so the in-process server of `helpers.ts` does not do here.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import type { TestContext } from "node:test";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import {
  type ChatCompletionRequest,
  createTempHome,
  type FakeOpenAIServer,
  type FakeStep,
  fakeModelConfig,
  startFakeOpenAIServer,
  type TempHome,
  testDatabase,
} from "@deerflow/harness/testing";
import { collect, gate, lastUserText } from "./helpers.js";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../cli/dist/bin/main.js");

/** One running `deerflow serve`: its process, what it printed, its exit, and a client on its URL. */
export interface ServeProcess {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exited: Promise<number | null>;
  client: Client;
  url: string;
}

/**
 * Starts `deerflow serve --config config` in `home` (added to `procs` for {@link stopServers}); resolves
 * once it listens, rejects with its stderr when it exits first. `env` is added to the process's own.
 */
export async function startServe(options: {
  config: string;
  home: string;
  procs: ServeProcess[];
  args?: string[];
  env?: Record<string, string>;
}): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [cli, "serve", "--port", "0", "--config", options.config, ...(options.args ?? [])],
    {
      env: {
        ...process.env,
        DEER_FLOW_HOME: options.home,
        DEER_FLOW_API_KEYS: "",
        DEER_FLOW_RUN_LEASE_MS: "3000",
        ...options.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (chunk) => (out.stdout += chunk));
  child.stderr!.on("data", (chunk) => (out.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const proc = { child, out, exited } as ServeProcess;
  options.procs.push(proc);
  // Waits on the output and the exit, not a poll: a poll left running after an early exit kept the
  // test process alive for the rest of its 30 s.
  proc.url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("Timed out waiting for the server's URL")), 30_000);
    const settle = () => {
      clearTimeout(timer);
      child.stdout!.off("data", onData);
    };
    const onData = () => {
      const url = /listening on (http:\/\/\S+)/.exec(out.stdout)?.[1];
      if (url) {
        settle();
        resolve(url);
      }
    };
    child.stdout!.on("data", onData);
    void exited.then((code) => {
      settle();
      reject(new Error(`serve exited ${code}: ${out.stderr}`));
    });
  });
  proc.client = new Client({ apiUrl: proc.url });
  return proc;
}

/** Kills every process in `procs` and waits for them to exit. */
export async function stopServers(procs: readonly ServeProcess[]): Promise<void> {
  for (const proc of procs) proc.child.kill("SIGKILL");
  await Promise.all(procs.map((proc) => proc.exited));
}

/**
 * A model script that echoes the user's message and holds a "slow" one until the test ends (then it is
 * let go, so no process is left waiting on it).
 */
export function echoHoldingSlow(t: TestContext): (body: ChatCompletionRequest) => Promise<FakeStep> {
  const block = gate();
  t.after(() => block.open());
  return async (body) => {
    if (lastUserText(body) === "slow") await block.wait;
    return { content: `echo ${lastUserText(body)}` };
  };
}

/** A run's input of one user message. */
export const human = (content: string) => ({ input: { messages: [{ role: "user", content }] } });

/** The `messages` of a thread's state values, as these tests read them. */
export type Messages = { messages: { type: string; content: unknown }[] };

/**
 * One process serves what another started: a run created on `a` (its model echoing "hello") is streamed
 * from `b` from the start, metadata first, with values and messages, and joining it on `b` gives the
 * echo. Returns the thread, the run and the streamed parts for the test to go on with.
 */
export async function assertRunSeenAcross(a: ServeProcess, b: ServeProcess) {
  const thread = await a.client.threads.create();
  const fast = await a.client.runs.create(thread.thread_id, "lead_agent", {
    ...human("hello"),
    streamMode: ["values", "messages-tuple"],
  });
  const streamed = await collect(
    b.client.runs.joinStream(thread.thread_id, fast.run_id, {
      lastEventId: "-1",
      streamMode: ["values", "messages-tuple"],
    }),
  );
  const names = streamed.map((part) => part.event);
  assert.equal(names[0], "metadata");
  assert.ok(names.includes("values") && names.includes("messages"), names.join(","));
  const joined = (await b.client.runs.join(thread.thread_id, fast.run_id)) as Messages;
  assert.equal(joined.messages.at(-1)!.content, "echo hello");
  return { thread, fast, streamed };
}

/** Processes of `deerflow serve` on one fresh database, with the fake model and a shared home. */
export interface Cluster {
  fake: FakeOpenAIServer;
  home: TempHome;
  config: string;
  dbUrl: string;
  procs: ServeProcess[];
  /** Starts one more `deerflow serve` on the cluster's config (with `args`), once it listens. */
  start(args?: string[]): Promise<ServeProcess>;
}

/**
 * A fresh database, the fake model answering by `script`, and a shared home whose config.yaml names both
 * (and `extraConfig` lines), for `start` to run processes on; `env` goes to each process. All of it goes
 * when the test ends. Null (the test skipped, the reason printed) when no Postgres answers.
 */
export async function startCluster(
  t: TestContext,
  script: Parameters<typeof startFakeOpenAIServer>[0]["script"],
  options: { extraConfig?: string[]; env?: Record<string, string> } = {},
): Promise<Cluster | null> {
  const db = await testDatabase();
  if ("skip" in db) {
    t.skip(db.skip);
    return null;
  }
  const fake = await startFakeOpenAIServer({ script });
  const home = createTempHome();
  const config = path.join(home.path, "config.yaml");
  writeFileSync(
    config,
    fakeModelConfig(fake.url, `database: {backend: postgres, url: '${db.url}'}`, ...(options.extraConfig ?? [])),
  );
  const procs: ServeProcess[] = [];
  t.after(async () => {
    await stopServers(procs);
    await fake.close();
    home.cleanup();
    await db.drop();
  });
  const start = (args: string[] = []) => startServe({ config, home: home.path, procs, args, env: options.env });
  return { fake, home, config, dbUrl: db.url, procs, start };
}
