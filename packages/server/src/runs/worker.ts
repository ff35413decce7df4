/**
 * The run worker: claims queued runs, executes each through the harness and publishes what the graph
 * streams into the run's event log, then settles the run and the thread. Requests never execute a
 * graph; they record a run and read its log. That is what makes join, reconnect, `on_disconnect:
 * continue`, cancel from another request and a restart in the middle of a run work.
 *
 * Event order per run: `metadata`, the graph's events, `error` on failure, `end` always last.
 * Cancel: `interrupt` stops the graph (its checkpoints stay, status `interrupted`); `rollback` also
 * restores the thread to its head before the run and deletes the run. On shutdown the worker stops
 * claiming, gives running runs a grace period, then stops them and leaves them pending, so the next
 * start resumes them from their last checkpoint.
 *
 * A run whose end cannot be recorded (a full disk, a database outage) is not left `running` with its
 * thread `busy`: its log still gets `end`, and the settlement is kept in memory and tried again on every
 * turn of the claim loop (at least once a second) until the store takes it. Once space is back the run
 * shows its status, the thread is idle and `/wait` answers, with no restart; until then later runs on
 * that thread wait in the queue. A settlement still unwritten at shutdown is left to the next start,
 * which resumes the run from its last checkpoint.
 *
 * Fencing (shared queues): an executor whose lease lapsed may still be running while another process
 * resumes its run. It checks the queue's fence before every checkpoint write (through a checkpointer
 * handed to the graph: on Postgres the check is part of each write's statement) and every write of the
 * run, and stops at the first failed check without settling anything. On Postgres what the executor
 * records (where the run started, that its input was taken) rides with its first checkpoint write, as an
 * update of the run's row that carries the fence itself, and the end is one statement behind the fence
 * too: a record made after another claim fails, so the claim's own read of the run is all the new owner
 * needs. Elsewhere the new owner reads the run again once it holds the thread, so it continues from what
 * the previous executor recorded.
 */
import { randomUUID } from "node:crypto";
import {
  cacheHead,
  describeRunError,
  type Harness,
  type HeadCachingSaver,
  type LeanPostgresSaver,
  type WriteGuard,
  type WriteRider,
} from "@deerflow/harness";
import { type BaseCheckpointSaver, Command } from "@langchain/langgraph";
import { isDiskFull } from "./disk-full.js";
import type { SqliteRunStores } from "./sqlite-store.js";
import { GRAPH_ID } from "./assistants.js";
import { interruptsOf } from "./state.js";
import { YieldingHandler } from "./requests-first.js";
import { TokenMeter } from "./token-meter.js";
import { removeThreadFiles } from "./threads.js";
import { wireJson, wireValues } from "./serialize.js";
import type {
  CancelAction,
  EventLog,
  RowFence,
  RunKwargs,
  RunQueue,
  RunRecord,
  RunStore,
  ThreadPatch,
  ThreadStore,
} from "./types.js";

/** Checkpoint operations the worker needs beyond the checkpointer's own API (sync on SQLite, async on Postgres). */
export interface CheckpointAdmin {
  rollbackCheckpoints(...args: Parameters<SqliteRunStores["rollbackCheckpoints"]>): void | Promise<void>;
  deleteThreadState(...args: Parameters<SqliteRunStores["deleteThreadState"]>): void | Promise<void>;
  copyThreadState(...args: Parameters<SqliteRunStores["copyThreadState"]>): void | Promise<void>;
}

/** What the worker runs on. */
export interface WorkerDeps {
  harness: Harness;
  threads: ThreadStore;
  runs: RunStore;
  queue: RunQueue;
  events: EventLog;
  checkpoints: CheckpointAdmin;
  maxConcurrentRuns: number;
  /** How long a finished stateless run's record is kept after its temporary thread is deleted, in ms. */
  runRetentionMs: number;
  log: (line: string) => void;
  /**
   * Takes the thread's cross-process lease (the CLI's `storage/thread-lease.ts`) before a run and returns
   * its release; waits while another process runs the thread. Optional: without it only this server's
   * own runs are serialized per thread.
   */
  threadLease?: (threadId: string, signal: AbortSignal) => Promise<() => void>;
  /**
   * Receives the model tokens an execution of a run spent (subagents included), once it stops, whatever
   * its outcome: the per-user `tokens_per_day` quota counts them (auth/quotas.ts `recordTokens`).
   */
  onRunTokens?: (run: RunRecord, tokens: number) => Promise<void>;
  /**
   * Resolves when the graphs may go on: on a later turn of the event loop, with no run request being
   * answered (runs/requests-first.ts). Given on the HTTP thread, so a new run's first event is not
   * written behind other runs' graph work; absent elsewhere.
   */
  yieldToRequests?: () => Promise<void>;
}

interface Active {
  run: RunRecord;
  controller: AbortController;
  /** Why the run is being stopped. */
  stop?: CancelAction | "shutdown" | "lost";
  done: Promise<void>;
}

/** Requested stream mode → LangGraph stream mode and the SSE event name. */
const MODE_MAP: Record<string, { graph: string; event: string }> = {
  values: { graph: "values", event: "values" },
  updates: { graph: "updates", event: "updates" },
  "messages-tuple": { graph: "messages", event: "messages" },
  custom: { graph: "custom", event: "custom" },
  tasks: { graph: "tasks", event: "tasks" },
  checkpoints: { graph: "checkpoints", event: "checkpoints" },
  debug: { graph: "debug", event: "debug" },
  tools: { graph: "tools", event: "tools" },
};

/** Appends the `metadata` event, the first event of every stream, to a run's new log. */
export async function appendMetadata(events: EventLog, run: RunRecord, attempt: number): Promise<void> {
  await events.append(
    run.run_id,
    "metadata",
    JSON.stringify({ run_id: run.run_id, thread_id: run.thread_id, attempt }),
  );
}

/** Appends the `metadata` event if the run's log is new. */
export async function ensureMetadata(events: EventLog, run: RunRecord, attempt: number): Promise<void> {
  if (!(await events.has(run.run_id))) await appendMetadata(events, run, attempt);
}

/** The run settings a backend's services pass through to their worker (`RunServicesOptions` has them). */
export interface WorkerSettings {
  maxConcurrentRuns: number;
  eventRetentionMs: number;
  log: (line: string) => void;
  threadLease?: WorkerDeps["threadLease"];
  onRunTokens?: WorkerDeps["onRunTokens"];
  yieldToRequests?: WorkerDeps["yieldToRequests"];
}

/** The worker over one backend's stores, with the settings every backend passes the same way. */
export function createBackendWorker(
  harness: Harness,
  stores: Pick<WorkerDeps, "threads" | "runs" | "queue" | "events" | "checkpoints">,
  settings: WorkerSettings,
) {
  return createWorker({
    harness,
    ...stores,
    maxConcurrentRuns: settings.maxConcurrentRuns,
    runRetentionMs: settings.eventRetentionMs,
    log: settings.log,
    threadLease: settings.threadLease,
    onRunTokens: settings.onRunTokens,
    yieldToRequests: settings.yieldToRequests,
  });
}

/** Creates the worker; call `start()` to begin claiming. */
export function createWorker(deps: WorkerDeps) {
  const { harness, threads, runs, queue, events } = deps;
  const active = new Map<string, Active>();
  /** Runs that are over but whose settlement the store refused (full disk, outage), by run id. */
  const unsettled = new Map<
    string,
    { settle: () => Promise<void>; threadId: string; fence: (() => Promise<boolean>) | undefined }
  >();
  let stopping = false;
  let loop: Promise<void> | undefined;

  async function pump(): Promise<void> {
    while (!stopping) {
      await retryUnsettled();
      if (active.size >= deps.maxConcurrentRuns) {
        await queue.wait(1000);
        continue;
      }
      // A graph starts after the run requests that have arrived are answered, not in the turn that queued it.
      await deps.yieldToRequests?.();
      if (stopping) break;
      let run: RunRecord | null = null;
      try {
        run = await queue.claim();
      } catch (error) {
        deps.log(`worker: claim failed: ${(error as Error).message}`);
      }
      if (!run) {
        await queue.wait(1000);
        continue;
      }
      const entry: Active = { run, controller: new AbortController(), done: Promise.resolve() };
      active.set(run.run_id, entry);
      entry.done = execute(entry)
        .catch((error) =>
          deps.log(`worker: run ${run!.run_id} could not be settled: ${(error as Error).stack ?? error}`),
        )
        .finally(() => {
          // Not a newer execution of the same run (claimed again here after this one lost its lease).
          if (active.get(run!.run_id) === entry) active.delete(run!.run_id);
          queue.notify();
        });
    }
  }

  async function execute(entry: Active): Promise<void> {
    const { run, controller } = entry;
    const off = queue.onCancel(run.run_id, (action) => {
      entry.stop ??= action;
      controller.abort(new Error(`Run ${run.run_id} was cancelled (${action}).`));
    });
    // A shared queue took the run away (this process missed its lease): stop and leave it to the new owner.
    const offLost = queue.onLost?.(run.run_id, () => {
      entry.stop = "lost";
      controller.abort(new Error(`Run ${run.run_id} was taken over by another process.`));
    });
    const fence = queue.fence?.(run.run_id);
    /** Stops the run as lost; returns the error to throw. */
    const lose = (): Error => {
      entry.stop = "lost";
      controller.abort(new Error(`Run ${run.run_id} was taken over by another process.`));
      return controller.signal.reason as Error;
    };
    /** Throws (and stops the run as lost) when this execution no longer owns the run. */
    const holdOrStop = async () => {
      if (!fence || (await fence())) return;
      throw lose();
    };
    const condition = queue.fenceCondition?.(run.run_id);
    // The claim counted this attempt.
    const attempt = run.kwargs.attempt ?? 1;
    const kwargs: RunKwargs = { ...run.kwargs, attempt };
    // On Postgres the run's checkpoint writes are fenced in their own statements, and what the worker
    // records about the run rides with the first of them (`rider`); the reads of the thread's head that
    // the run has in memory cost nothing (`cacheHead`). Elsewhere each is its own step, as before.
    const saver = harness.setup.checkpointer;
    const inStatement = Boolean(fence && condition && saver && isGuardable(saver));
    let rider: Partial<RunKwargs> | undefined;
    const runSaver =
      fence && saver
        ? cacheHead(
            fencedCheckpointer(
              saver,
              holdOrStop,
              condition && {
                ...condition,
                lost: lose,
                rider: () => {
                  const patch = rider;
                  if (!patch) return undefined;
                  return kwargsRider(condition.row, patch, () => {
                    if (patch.input_consumed) kwargs.input_consumed = true;
                    if (rider === patch) rider = undefined;
                  });
                },
              },
            ),
            run.thread_id,
          )
        : undefined;
    const withSaver = <T extends { configurable: Record<string, unknown> }>(config: T): T =>
      runSaver && inStatement
        ? { ...config, configurable: { ...config.configurable, __pregel_checkpointer: runSaver } }
        : config;
    let outcome: "success" | "error" | "cancelled" = "success";
    let agentModel: Parameters<typeof describeRunError>[1] | undefined;
    let release: (() => void) | undefined;
    const meter = new TokenMeter();
    try {
      await ensureMetadata(events, run, attempt);
      release = await deps.threadLease?.(run.thread_id, controller.signal);
      // With the kwargs written behind the fence, the claim's read is all there is: a previous executor
      // recorded what it did before this claim (it is in the claimed row) or could not record it at all.
      if (fence && !inStatement) {
        // A previous executor may have recorded progress after this claim read the run (it held the thread until now).
        let fresh: RunRecord | null;
        if (queue.owned) {
          fresh = await queue.owned(run.run_id);
          if (!fresh) throw lose();
        } else {
          await holdOrStop();
          fresh = await runs.get(run.run_id);
        }
        if (fresh?.kwargs.start_checkpoint_id !== undefined)
          kwargs.start_checkpoint_id ??= fresh.kwargs.start_checkpoint_id;
        if (fresh?.kwargs.input_consumed) kwargs.input_consumed = true;
      }
      // The run's memory is its starter's (run options from the request never name a user).
      const agent = harness.agent({ ...kwargs.run_options, user_id: kwargs.owner ?? undefined } as never);
      agentModel = agent.deerflow.model.entry;
      const threadConfig = withSaver({ configurable: { thread_id: run.thread_id } as Record<string, unknown> });
      if (kwargs.start_checkpoint_id === undefined) {
        const head = await agent.graph.getState(threadConfig);
        kwargs.start_checkpoint_id = (head.config?.configurable?.checkpoint_id as string | undefined) ?? null;
      } else if (!kwargs.input_consumed) {
        // A resumed attempt: when the thread moved past the run's start, the input (or command) was already
        // checkpointed (the previous attempt died before it could record that), so it must not be sent again:
        // a command's update applied twice would add its messages again under new ids.
        const head = await agent.graph.getState(threadConfig);
        if (((head.config?.configurable?.checkpoint_id as string | undefined) ?? null) !== kwargs.start_checkpoint_id)
          kwargs.input_consumed = true;
      }
      const input = kwargs.input_consumed ? null : kwargs.command ? new Command(kwargs.command as never) : kwargs.input;
      if (inStatement) {
        // Recorded with the run's first checkpoint write, which also consumes the input (or the command).
        rider = {
          start_checkpoint_id: kwargs.start_checkpoint_id,
          ...(input === null ? {} : { input_consumed: true }),
        };
      } else await runs.update(run.run_id, { kwargs: { attempt, start_checkpoint_id: kwargs.start_checkpoint_id } });

      const modes = kwargs.stream_mode.filter((mode) => MODE_MAP[mode]);
      const graphModes = [...new Set(modes.map((mode) => MODE_MAP[mode]!.graph))];
      const eventName = new Map(modes.map((mode) => [MODE_MAP[mode]!.graph, MODE_MAP[mode]!.event]));
      const configurable: Record<string, unknown> = {
        ...kwargs.configurable,
        thread_id: run.thread_id,
        run_id: run.run_id,
        assistant_id: run.assistant_id,
        graph_id: GRAPH_ID,
        ...(kwargs.checkpoint_id && !kwargs.input_consumed
          ? { checkpoint_id: kwargs.checkpoint_id, checkpoint_ns: kwargs.checkpoint_ns }
          : {}),
        // LangGraph's per-call checkpointer key: the harness's own, behind the fence.
        ...(runSaver ? { __pregel_checkpointer: runSaver } : {}),
      };
      const streamOptions = {
        configurable,
        recursionLimit: kwargs.recursion_limit,
        tags: kwargs.tags,
        metadata: {
          run_id: run.run_id,
          thread_id: run.thread_id,
          assistant_id: run.assistant_id,
          graph_id: GRAPH_ID,
          ...run.metadata,
        },
        signal: controller.signal,
        callbacks: deps.yieldToRequests ? [meter, new YieldingHandler(deps.yieldToRequests)] : [meter],
        streamMode: graphModes.length > 0 ? graphModes : ["values"],
        subgraphs: kwargs.stream_subgraphs,
        ...(kwargs.interrupt_before ? { interruptBefore: kwargs.interrupt_before } : {}),
        ...(kwargs.interrupt_after ? { interruptAfter: kwargs.interrupt_after } : {}),
      };
      let first = true;
      const publish = async (chunk: unknown[], requested: boolean) => {
        await deps.yieldToRequests?.();
        if (first) {
          first = false;
          // In statement, the rider records it with the first write.
          if (!inStatement && !kwargs.input_consumed) {
            await holdOrStop();
            kwargs.input_consumed = true;
            await runs.update(run.run_id, { kwargs: { input_consumed: true } });
          }
        }
        if (!requested) return;
        const [namespace, mode, data] =
          chunk.length === 3
            ? (chunk as [string[], string, unknown])
            : ([[], ...chunk] as unknown as [string[], string, unknown]);
        const name = eventName.get(mode) ?? mode;
        await events.append(run.run_id, namespace.length > 0 ? `${name}|${namespace.join("|")}` : name, wireJson(data));
      };
      if (kwargs.stream_mode.includes("events")) {
        // LangChain events (streamEvents v2); the graph's own stream chunks ride on the root run's
        // on_chain_stream events, so the other requested modes come out of the same pass.
        const rootRunId = randomUUID();
        const stream = agent.graph.streamEvents(
          input as never,
          { ...streamOptions, version: "v2", runId: rootRunId } as never,
        );
        for await (const event of stream as unknown as AsyncIterable<{
          event: string;
          run_id: string;
          tags?: string[];
          data?: { chunk?: unknown };
        }>) {
          if (event.tags?.includes("langsmith:hidden")) continue;
          if (event.event === "on_chain_stream" && event.run_id === rootRunId && Array.isArray(event.data?.chunk)) {
            await publish(event.data.chunk as unknown[], graphModes.length > 0);
            continue;
          }
          await events.append(run.run_id, "events", wireJson(event));
        }
      } else {
        const stream = await agent.graph.stream(input as never, streamOptions as never);
        for await (const chunk of stream as AsyncIterable<unknown[]>) await publish(chunk, true);
      }
      if (controller.signal.aborted) outcome = "cancelled";
    } catch (error) {
      if (controller.signal.aborted) outcome = "cancelled";
      else {
        outcome = "error";
        const message = isDiskFull(error)
          ? "The server's disk is full, so the run could not save its progress. Free space on the server's disk, then send the message again (the thread keeps it)."
          : errorMessage(error, agentModel, run.thread_id);
        kwargs.error = { error: (error as Error)?.name ?? "Error", message };
        deps.log(`run ${run.run_id} on thread ${run.thread_id} failed: ${message}`);
        await events
          .append(run.run_id, "error", JSON.stringify(kwargs.error))
          .catch((failed) =>
            deps.log(`run ${run.run_id}: its error event was not written: ${(failed as Error).message}`),
          );
      }
    } finally {
      off();
      offLost?.();
      // checkpoints.retention, under the thread's lease; not after a shutdown or a lost lease (the run is
      // not over). Whether the run is still ours decides everything that follows: the prune checks the
      // fence in its own transaction when it can, else it is asked first (an unreachable database: assume so).
      const guard = fence && !entry.stop && condition ? { sql: condition.sql, params: condition.params } : undefined;
      if (fence && !entry.stop && !guard && !(await fence().catch(() => true))) entry.stop = "lost";
      if (entry.stop !== "shutdown" && entry.stop !== "lost") {
        const pruned = await harness.afterRun(run.thread_id, guard);
        if (guard && pruned.guard === "lost") entry.stop = "lost";
        else if (guard && pruned.guard === undefined && !(await fence!().catch(() => true))) entry.stop = "lost";
      }
      release?.();
      if (meter.tokens > 0)
        await deps
          .onRunTokens?.(run, meter.tokens)
          .catch((error) =>
            deps.log(`run ${run.run_id}: its ${meter.tokens} tokens were not counted: ${(error as Error).message}`),
          );
    }
    const held = inStatement ? { saver: runSaver, owner: condition?.row } : {};
    try {
      await settle(entry, outcome, kwargs, held);
    } catch (error) {
      // Readers must not wait for a run that is over; the store learns it on a later try.
      await events.end(run.run_id).catch(() => {});
      unsettled.set(run.run_id, { settle: () => settle(entry, outcome, kwargs, held), threadId: run.thread_id, fence });
      deps.log(
        `run ${run.run_id} on thread ${run.thread_id} is over but its end could not be recorded (${firstLine(error)}); retrying every second${isDiskFull(error) ? ": free disk space on the server" : ""}.`,
      );
    }
  }

  /** Tries again to record the runs whose settlement failed; a success frees their threads for queued runs. */
  async function retryUnsettled(): Promise<void> {
    for (const [runId, pending] of unsettled) {
      try {
        // A shared queue may have handed the run on meanwhile (its lease lapsed): then it is the new owner's.
        if (pending.fence && !(await pending.fence())) {
          unsettled.delete(runId);
          deps.log(`run ${runId} on thread ${pending.threadId}: another process took it over; not recording it here.`);
          continue;
        }
        await pending.settle();
      } catch {
        continue;
      }
      unsettled.delete(runId);
      deps.log(`run ${runId} on thread ${pending.threadId}: its end is recorded now.`);
      queue.notify();
    }
  }

  async function settle(
    entry: Active,
    outcome: "success" | "error" | "cancelled",
    kwargs: RunKwargs,
    held: { saver?: HeadCachingSaver; owner?: RowFence } = {},
  ): Promise<void> {
    const { run } = entry;
    if (entry.stop === "lost") {
      deps.log(
        `run ${run.run_id} on thread ${run.thread_id}: another process took it over (this one missed its lease); stopped here.`,
      );
      return;
    }
    if (outcome === "cancelled" && entry.stop === "shutdown") {
      // Not over: leave it pending with its progress so the next start resumes it. Readers are closed with the server.
      await runs.update(run.run_id, { status: "pending", kwargs: { input_consumed: kwargs.input_consumed } });
      deps.log(
        `run ${run.run_id} on thread ${run.thread_id} was stopped by the shutdown; it resumes on the next start.`,
      );
      return;
    }
    if (outcome === "cancelled" && entry.stop === "rollback") {
      held.saver?.forget();
      await deps.checkpoints.rollbackCheckpoints(run.thread_id, kwargs.start_checkpoint_id ?? null);
      await runs.delete(run.run_id);
    }
    // The head the run wrote last, from memory when the run's checkpointer holds it.
    const state = await harness
      .agent()
      .graph.getState({
        configurable: { thread_id: run.thread_id, ...(held.saver ? { __pregel_checkpointer: held.saver } : {}) },
      })
      .catch(() => null);
    const values = state ? (wireValues(state.values ?? {}) as Record<string, unknown>) : null;
    const interrupted = Boolean(state && state.next.length > 0);
    const threadPatch = {
      // Busy or idle (whether the thread has other active runs) when not given.
      status:
        outcome === "error"
          ? ("error" as const)
          : interrupted && outcome === "success"
            ? ("interrupted" as const)
            : undefined,
      values,
      interrupts: state ? interruptsOf(state) : {},
      error: outcome === "error" ? (kwargs.error?.message ?? null) : null,
    };
    let others: number;
    if (entry.stop !== "rollback") {
      const status = outcome === "success" ? "success" : outcome === "error" ? "error" : "interrupted";
      // The run's status, the thread's state and whether it has other active runs, in one step.
      const settled = await runs.settle(run.run_id, {
        status,
        kwargs: { error: kwargs.error, ...(run.kwargs.temporary ? { output: values } : {}) },
        thread: threadPatch,
        owner: held.owner,
      });
      // Behind the fence, a run that is still there but not this claim's was taken over by another process
      // meanwhile: it is theirs to record.
      if (!settled && held.owner && (await runs.get(run.run_id))) {
        entry.stop = "lost";
        deps.log(`run ${run.run_id} on thread ${run.thread_id}: another process took it over; stopped here.`);
        return;
      }
      others = settled ? settled.others : await patchThreadOf(run, threadPatch);
    } else others = await patchThreadOf(run, threadPatch);
    await events.end(run.run_id);
    if (run.kwargs.temporary && run.kwargs.on_completion === "delete" && others === 0) {
      await deps.checkpoints.deleteThreadState(run.thread_id);
      // Its files go too, before the record: files left without one would outlive the thread.
      await removeThreadFiles(harness, run.thread_id).catch((error: Error) =>
        deps.log(`The files of temporary thread ${run.thread_id} could not be removed: ${error.message}`),
      );
      await threads.delete(run.thread_id, { keepRuns: true }).catch(() => false);
      // The run record (and its output) stays as long as its events, so get/join still answer, then goes.
      setTimeout(() => void runs.delete(run.run_id).catch(() => false), deps.runRetentionMs).unref();
    }
  }

  /** The thread's state after a run the store did not settle (rolled back or deleted); returns its other active runs. */
  async function patchThreadOf(run: RunRecord, patch: ThreadPatch): Promise<number> {
    const others = (await runs.active(run.thread_id)).filter((other) => other.run_id !== run.run_id).length;
    await threads.patch(run.thread_id, { ...patch, status: patch.status ?? (others > 0 ? "busy" : "idle") });
    return others;
  }

  return {
    /** Requeues what a previous process left running, then starts claiming. */
    async start(): Promise<void> {
      const recovered = await queue.recover();
      for (const run of recovered)
        deps.log(`run ${run.run_id} on thread ${run.thread_id} was interrupted by a restart; resuming it.`);
      loop = pump();
    },
    /** Runs being executed now. */
    activeRunIds: () => [...active.keys()],
    /**
     * Stops claiming, waits up to `graceMs` for running runs, then stops the rest and leaves them pending.
     */
    async drain(graceMs: number): Promise<void> {
      stopping = true;
      queue.notify();
      const all = () => Promise.all([...active.values()].map((entry) => entry.done));
      const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), graceMs).unref());
      if ((await Promise.race([all().then(() => "done" as const), timer])) === "timeout") {
        for (const entry of active.values()) {
          entry.stop ??= "shutdown";
          entry.controller.abort(new Error("The server is shutting down."));
        }
        await all();
      }
      await loop;
      await retryUnsettled();
      for (const runId of unsettled.keys())
        deps.log(`run ${runId}: its end is still not recorded at shutdown; the next start resumes it.`);
    },
  };
}

/**
 * The checkpointer whose writes are fenced: the Postgres checkpointer checks `guard` inside each write's
 * own statement; any other has `check` awaited before each write. A failed check throws instead of writing.
 */
function fencedCheckpointer(
  saver: BaseCheckpointSaver,
  check: () => Promise<void>,
  guard: WriteGuard | undefined,
): BaseCheckpointSaver {
  if (guard && isGuardable(saver)) return saver.guarded(guard);
  return new Proxy(saver, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== "function") return value;
      if (key === "put" || key === "putWrites") {
        return async (...args: unknown[]) => {
          await check();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

/**
 * The rider that records `patch` in the run's kwargs with the next checkpoint write, behind the run's
 * row fence (`$1`… are the fence's params); `done` once written.
 */
function kwargsRider(owner: RowFence, patch: Partial<RunKwargs>, done: () => void): WriteRider {
  const json = `$${owner.params.length + 1}::jsonb`;
  return {
    sql: `UPDATE server_runs SET kwargs = kwargs || ${json} WHERE ${owner.sql} RETURNING 1`,
    params: [JSON.stringify(patch)],
    written: done,
  };
}

/** A checkpointer that can check a condition in its write statements (the harness's Postgres one). */
function isGuardable(saver: BaseCheckpointSaver): saver is LeanPostgresSaver {
  return typeof (saver as Partial<LeanPostgresSaver>).guarded === "function";
}

/** The first line of an error's message. */
function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
}

/** The worker `createWorker` returns. */
export type RunWorker = ReturnType<typeof createWorker>;

/** One line naming the model and saying the thread can be retried. */
function errorMessage(
  error: unknown,
  entry: Parameters<typeof describeRunError>[1] | undefined,
  threadId: string,
): string {
  const message = entry
    ? describeRunError(error, entry, threadId).message
    : error instanceof Error
      ? error.message
      : String(error);
  const line = message
    .replace(/\s*The thread's messages are kept; retry with: deerflow run --thread \S+/, "")
    .split("\n")[0]!;
  return `${line}${/[.!?]$/.test(line) ? "" : "."} The thread keeps your message; send it again to retry.`;
}
