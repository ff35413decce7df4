/**
 * Run worker threads (`server.run_workers: N`, SQLite): the graphs of runs execute on N worker threads,
 * each with its own harness, its own event loop and its own connection to the SQLite file, so the
 * thread that answers HTTP only accepts requests, records runs and relays their events, and a
 * one-machine `deerflow serve` uses more than one core. Without it (N = 0) runs execute on the HTTP
 * thread as before.
 *
 * The pool stands where the in-process worker stands (`RunWorker`): `start` requeues what a previous
 * process left running and starts one thread, `drain` drains each thread's worker. The others start on
 * demand, one at a time: when a run arrives while every started thread is running one, up to N. Each
 * thread loads langchain and builds a harness (about 1.5 s of CPU and 75 MB), which a server
 * that never runs two things at once does not need to pay N times. The queue the routes
 * see is the local one with its wake-ups and cancel requests also sent to every thread; the threads
 * claim from the shared run table (an IMMEDIATE transaction, so one running run per thread holds
 * across connections). Each thread's events come back in order and go into the HTTP thread's event
 * log, so streaming, join and reconnect read the log as before. A thread that dies has its runs put
 * back to pending and is replaced.
 */
import { Worker } from "node:worker_threads";
import type { Harness } from "@deerflow/harness";
import type { FromRunThread, RunThreadData, ToRunThread } from "./thread-messages.js";
import type { EventLog, RunQueue, RunRecord, RunStore } from "./types.js";
import type { RunWorker, WorkerSettings } from "./worker.js";

/** What the pool runs beside. */
export interface RunThreadPoolDeps {
  harness: Harness;
  /** The SQLite file of checkpoints, threads and runs. */
  file: string;
  /** The HTTP thread's local queue (claims nothing here once the pool runs). */
  queue: RunQueue;
  runs: RunStore;
  events: EventLog;
  /** How many threads. */
  count: number;
  settings: WorkerSettings;
}

interface Member {
  worker: Worker;
  /** True once its harness is built and it claims runs. */
  ready: boolean;
  active: Set<string>;
  drained?: Promise<void>;
}

/** The option sets a run thread cannot rebuild from the config (code handed to `createHarness`), if any. */
export function unsharableHarnessOptions(harness: Harness): string[] {
  const options = harness.setup.options as Record<string, unknown>;
  return ["chatModel", "tools", "middleware", "beforeSummarization", "checkpointer", "mcp", "pruner"].filter(
    (key) => options[key] !== undefined,
  );
}

/** The entry point of a run thread: the compiled file, or the TypeScript source when running under tsx. */
function threadEntry(): URL {
  if (!import.meta.url.endsWith(".ts")) return new URL("./run-thread.js", import.meta.url);
  // Under tsx this is the source (its resolver maps .js to .ts). The test run's compiled copies name
  // their source in `import.meta.url` (scripts/compile-tests.mjs) but resolve to their compiled
  // neighbour here, so the thread loads plain JavaScript instead of registering tsx (about a second of
  // CPU per thread).
  return new URL(import.meta.resolve("./run-thread.js"));
}

/** Creates the pool and the queue the routes use with it. */
export function createRunThreadPool(deps: RunThreadPoolDeps): { worker: RunWorker; queue: RunQueue } {
  const { harness, settings } = deps;
  const members = new Set<Member>();
  /** Per run, the chain of its log writes, so they land in the order the thread sent them. */
  const chains = new Map<string, Promise<unknown>>();
  let stopping = false;
  const perThread = Math.max(1, Math.ceil(settings.maxConcurrentRuns / deps.count));

  const started = () => [...members].filter((member) => member.ready).length;
  const broadcast = (message: ToRunThread) => {
    for (const member of members) member.worker.postMessage(message);
  };
  const inOrder = (runId: string, write: () => Promise<unknown>) => {
    const next = (chains.get(runId) ?? Promise.resolve())
      .then(write)
      .catch((error: Error) => settings.log(`run ${runId}: an event was not written to its log: ${error.message}`));
    chains.set(runId, next);
    void next.then(() => {
      if (chains.get(runId) === next) chains.delete(runId);
    });
  };

  // Skills reloaded or graphs dropped over HTTP: the threads' harnesses follow.
  const reloadSkills = harness.reloadSkills.bind(harness);
  const invalidate = harness.invalidate.bind(harness);
  Object.assign(harness, {
    reloadSkills: () => {
      const prepared = reloadSkills();
      broadcast({ type: "reloadSkills" });
      return prepared;
    },
    invalidate: () => {
      invalidate();
      broadcast({ type: "invalidate" });
    },
  });

  async function answer(member: Member, message: Extract<FromRunThread, { type: "call" }>): Promise<void> {
    try {
      const value =
        message.method === "has"
          ? await deps.events.has(...message.args)
          : message.method === "ended"
            ? await deps.events.ended(...message.args)
            : await harness.setup.threadAccess(...message.args);
      member.worker.postMessage({ type: "reply", id: message.id, value } satisfies ToRunThread);
    } catch (error) {
      member.worker.postMessage({
        type: "reply",
        id: message.id,
        error: (error as Error).message,
      } satisfies ToRunThread);
    }
  }

  /** Starts one thread; resolves once its harness is built and it claims. */
  function spawn(): Promise<void> {
    const data: RunThreadData = {
      config: harness.setup.config,
      home: harness.home,
      env: { ...harness.setup.env },
      file: deps.file,
      agentCacheSize: harness.setup.options.agentCacheSize,
      maxConcurrentRuns: perThread,
      eventRetentionMs: settings.eventRetentionMs,
      threadLease: settings.threadLease !== undefined,
    };
    const entry = threadEntry();
    // Under tsx (tests, the bench from source) the thread registers tsx's loader before it loads the entry.
    const worker = entry.pathname.endsWith(".ts")
      ? new Worker(
          `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`,
          { eval: true, workerData: data },
        )
      : new Worker(entry, { workerData: data });
    const member: Member = { worker, ready: false, active: new Set() };
    members.add(member);
    let resolveDrained!: () => void;
    member.drained = new Promise<void>((resolve) => (resolveDrained = resolve));
    return new Promise<void>((resolve, reject) => {
      const receive = (message: FromRunThread): void => {
        switch (message.type) {
          case "batch":
            for (const each of message.messages) receive(each);
            break;
          case "ready":
            member.ready = true;
            settings.log(`run worker thread started (${started()} of ${deps.count}).`);
            resolve();
            break;
          case "failed":
            reject(new Error(`A run worker thread could not start: ${message.message}`));
            break;
          case "append":
            inOrder(message.runId, () => deps.events.append(message.runId, message.event, message.data));
            break;
          case "end":
            inOrder(message.runId, () => deps.events.end(message.runId));
            break;
          case "drop":
            inOrder(message.runId, () => deps.events.drop(message.runId));
            break;
          case "call":
            void answer(member, message);
            break;
          case "active":
            member.active = new Set(message.runIds);
            break;
          case "tokens":
            void settings
              .onRunTokens?.(message.run, message.tokens)
              .catch((error: Error) =>
                settings.log(
                  `run ${message.run.run_id}: its ${message.tokens} tokens were not counted: ${error.message}`,
                ),
              );
            break;
          case "log":
            settings.log(message.line);
            break;
          case "notify":
            // The HTTP thread's own waiters (webhook deliveries), and the other threads: a run ended, a thread is free.
            deps.queue.notify();
            for (const other of members) if (other !== member) other.worker.postMessage({ type: "notify" });
            break;
          case "drained":
            resolveDrained();
            break;
        }
      };
      worker.on("message", receive);
      worker.on("error", (error) => {
        settings.log(`run worker thread failed: ${error.stack ?? error.message}`);
        if (!member.ready) reject(error);
      });
      worker.on("exit", (code) => {
        members.delete(member);
        resolveDrained();
        if (stopping || !member.ready) return;
        // Its runs are not over: back to pending, for another thread to resume from their last checkpoint.
        settings.log(`run worker thread exited (${code}); its runs resume on another thread.`);
        void requeue([...member.active]).then(() => spawn().catch((error: Error) => settings.log(error.message)));
      });
    });
  }

  async function requeue(runIds: string[]): Promise<void> {
    for (const runId of runIds) {
      const run: RunRecord | null = await deps.runs.get(runId).catch(() => null);
      if (run?.status === "running") await deps.runs.update(runId, { status: "pending" }).catch(() => null);
    }
    broadcast({ type: "notify" });
  }

  /**
   * A run arrived: one more thread when every thread is running something (a thread still starting
   * will claim it). Runs on one thread share its event loop, so a second run waiting on the first's
   * graph work is what another core helps with.
   */
  function grow(): void {
    if (stopping || members.size >= deps.count) return;
    for (const member of members) if (!member.ready || member.active.size === 0) return;
    spawn().catch((error: Error) => settings.log(error.message));
  }

  const queue: RunQueue = {
    ...deps.queue,
    // The routes call this when a run is queued (or its delay is over).
    notify() {
      deps.queue.notify();
      broadcast({ type: "notify" });
      grow();
    },
    cancel(runId, action) {
      deps.queue.cancel(runId, action);
      broadcast({ type: "cancel", runId, action });
    },
  };

  const worker: RunWorker = {
    async start() {
      const recovered = await deps.queue.recover();
      for (const run of recovered)
        settings.log(`run ${run.run_id} on thread ${run.thread_id} was interrupted by a restart; resuming it.`);
      await spawn();
    },
    activeRunIds: () => [...members].flatMap((member) => [...member.active]),
    async drain(graceMs) {
      stopping = true;
      const all = [...members];
      for (const member of all) member.worker.postMessage({ type: "drain", graceMs } satisfies ToRunThread);
      await Promise.all(all.map((member) => member.drained));
      await Promise.all([...chains.values()]);
      await Promise.all(all.map((member) => member.worker.terminate()));
    },
  };
  return { worker, queue };
}
