/**
 * Delegations the lead does not wait for: `task(..., run_in_background: true)` starts a subagent here
 * and returns at once, the lead keeps working, and the `background_tasks` tool lists, collects or
 * cancels what it started.
 *
 * Records are grouped by the lead's thread (a thread runs one run at a time). A finished task keeps its
 * record, with its result, until the lead collects it or its run ends. The run's end (the
 * background-tasks middleware) cancels what still runs and drops every record of the thread, so no
 * subagent and no result outlives the run that started it. A task whose parent run was aborted is
 * cancelled with it and dropped once it has settled; nobody is left to collect it.
 */
import type { SubagentResult, SubagentStatus } from "./types.js";

/** The key a thread's background tasks are filed under: its `thread_id`, or one shared key without one. */
export function backgroundThreadKey(threadId: unknown): string {
  return typeof threadId === "string" && threadId !== "" ? threadId : "(no thread)";
}

/** What the lead sees of one background task. */
export interface BackgroundTaskView {
  task_id: string;
  description: string;
  subagent_type: string;
  status: "running" | SubagentStatus;
  /** Subagent steps (AI turns and tool results) seen so far. */
  steps: number;
  /** Seconds since the task started. */
  elapsed_seconds: number;
}

/** A collected task: its view and its final result. */
export interface CollectedTask {
  view: BackgroundTaskView;
  result: SubagentResult;
  /** The subagent's model, when its kind names one (for the status contract). */
  modelName?: string;
}

/** What {@link BackgroundTasks.start} needs to run one delegation. */
export interface BackgroundStart {
  taskId: string;
  description: string;
  subagentType: string;
  modelName?: string;
  /** Background tasks the thread may have running at once, this one included (`subagents.max_concurrent`). */
  maxRunning: number;
  /** The parent run's abort signal: when it fires, the task is cancelled and then dropped. */
  signal?: AbortSignal;
  /** Runs the subagent (the executor); `onStep` counts its steps for `list`. Must not throw. */
  run: (signal: AbortSignal, onStep: () => void) => Promise<SubagentResult>;
}

/** What {@link BackgroundTasks.endRun} did. */
export interface EndRunReport {
  /** Tasks still running at the run's end, now cancelled. */
  cancelled: number;
  /** Finished tasks whose results the lead never collected. */
  uncollected: number;
}

interface Entry {
  view: Omit<BackgroundTaskView, "status" | "elapsed_seconds">;
  startedAt: number;
  modelName?: string;
  controller: AbortController;
  result?: SubagentResult;
  done: Promise<SubagentResult>;
}

/** Options of {@link BackgroundTasks}. */
export interface BackgroundTasksOptions {
  /** Clock in milliseconds, for `elapsed_seconds`. Default `Date.now`. */
  now?: () => number;
}

/**
 * The background delegations of a harness's lead agents, per thread.
 *
 * @example
 * const tasks = new BackgroundTasks();
 * tasks.start("thread-1", { taskId: "call_1", description: "Scan logs", subagentType: "bash", maxRunning: 3,
 *   run: (signal, onStep) => runSubagent({ ...options, signal, emit: onStep }) });
 * const collected = await tasks.collect("thread-1", "call_1"); // waits for the result, then forgets it
 */
export class BackgroundTasks {
  private readonly threads = new Map<string, Map<string, Entry>>();
  private readonly now: () => number;

  constructor(options: BackgroundTasksOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /** Starts a task, or returns why it cannot start (too many running, or a task id already in use). */
  start(thread: string, start: BackgroundStart): { ok: true } | { ok: false; error: string } {
    const entries = this.entriesOf(thread);
    if (entries.has(start.taskId)) return { ok: false, error: `A background task with id ${start.taskId} exists.` };
    const running = [...entries.values()].filter((entry) => entry.result === undefined).length;
    if (running >= start.maxRunning) {
      return {
        ok: false,
        error:
          `${running} background tasks are already running (the limit is ${start.maxRunning}, subagents.max_concurrent); this one was not started. ` +
          "Collect or cancel one with background_tasks first, or run this task in the foreground.",
      };
    }
    const controller = new AbortController();
    const signal = start.signal ? AbortSignal.any([controller.signal, start.signal]) : controller.signal;
    const view = { task_id: start.taskId, description: start.description, subagent_type: start.subagentType, steps: 0 };
    const settled = start
      .run(signal, () => {
        view.steps += 1;
      })
      .catch(
        (error: unknown): SubagentResult => ({
          status: "failed",
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    const entry: Entry = { view, startedAt: this.now(), modelName: start.modelName, controller, done: settled };
    entry.done = settled.then((result) => {
      entry.result = result;
      // Deferred cleanup: an aborted parent run can no longer collect, so its record goes now.
      if (start.signal?.aborted) this.forget(thread, start.taskId, entry);
      return result;
    });
    entries.set(start.taskId, entry);
    return { ok: true };
  }

  /** Every task of `thread` (running and finished but not collected), oldest first. */
  list(thread: string): BackgroundTaskView[] {
    return [...(this.threads.get(thread)?.values() ?? [])].map((entry) => this.viewOf(entry));
  }

  /** The ids of `thread`'s tasks, for error messages. */
  ids(thread: string): string[] {
    return [...(this.threads.get(thread)?.keys() ?? [])];
  }

  /**
   * Waits for task `taskId` to finish, at most `waitMs` (default: until it ends, which its own timeout
   * bounds) and no longer than `signal` allows, then returns and forgets it. A task still running after
   * the wait is returned without a result and kept. `undefined`: no such task.
   */
  async collect(
    thread: string,
    taskId: string,
    options: { waitMs?: number; signal?: AbortSignal } = {},
  ): Promise<CollectedTask | { view: BackgroundTaskView; result?: undefined } | undefined> {
    const entry = this.threads.get(thread)?.get(taskId);
    if (entry === undefined) return undefined;
    if (entry.result === undefined) await waitFor(entry.done, options.waitMs, options.signal);
    if (entry.result === undefined) return { view: this.viewOf(entry) };
    this.forget(thread, taskId, entry);
    return {
      view: this.viewOf(entry),
      result: entry.result,
      ...(entry.modelName ? { modelName: entry.modelName } : {}),
    };
  }

  /** Cancels task `taskId` (when still running), waits for it to settle, and returns and forgets it. */
  async cancel(thread: string, taskId: string): Promise<CollectedTask | undefined> {
    const entry = this.threads.get(thread)?.get(taskId);
    if (entry === undefined) return undefined;
    entry.controller.abort(new Error("Background task cancelled by the lead"));
    const result = await entry.done;
    this.forget(thread, taskId, entry);
    return { view: this.viewOf(entry), result, ...(entry.modelName ? { modelName: entry.modelName } : {}) };
  }

  /** The run on `thread` ended: cancels its running tasks, waits for them to settle, drops every record. */
  async endRun(thread: string): Promise<EndRunReport> {
    const entries = this.threads.get(thread);
    if (entries === undefined) return { cancelled: 0, uncollected: 0 };
    this.threads.delete(thread);
    const all = [...entries.values()];
    const running = all.filter((entry) => entry.result === undefined);
    for (const entry of running) entry.controller.abort(new Error("The run that started this background task ended"));
    await Promise.all(running.map((entry) => entry.done));
    return { cancelled: running.length, uncollected: all.length - running.length };
  }

  /** Ends every thread's tasks (the harness is closing). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.threads.keys()].map((thread) => this.endRun(thread)));
  }

  private entriesOf(thread: string): Map<string, Entry> {
    let entries = this.threads.get(thread);
    if (entries === undefined) {
      entries = new Map();
      this.threads.set(thread, entries);
    }
    return entries;
  }

  private forget(thread: string, taskId: string, entry: Entry): void {
    const entries = this.threads.get(thread);
    if (entries?.get(taskId) !== entry) return;
    entries.delete(taskId);
    if (entries.size === 0) this.threads.delete(thread);
  }

  private viewOf(entry: Entry): BackgroundTaskView {
    return {
      ...entry.view,
      status: entry.result?.status ?? "running",
      elapsed_seconds: Math.max(0, Math.round((this.now() - entry.startedAt) / 1000)),
    };
  }
}

/** Resolves when `done` settles, `waitMs` passes or `signal` aborts, whichever comes first. */
function waitFor(done: Promise<unknown>, waitMs: number | undefined, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = waitMs === undefined ? undefined : setTimeout(finish, Math.max(0, waitMs));
    const onAbort = () => finish();
    signal?.addEventListener("abort", onAbort, { once: true });
    done.then(finish, finish);
    function finish() {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }
  });
}
