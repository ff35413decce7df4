/**
 * What `run` and `chat` share: building the agent from flags and config, and running one turn on a
 * thread while rendering progress and printing the answer. A turn that fails on the model keeps the
 * thread's saved state (the user's message is already checkpointed), so `--thread ID` can retry it.
 *
 * The CLI exits about two seconds after its answer, whatever the title and memory models do: the title
 * model gets `TITLE_BUDGET_SECONDS` (a slower one leaves the thread its fallback title, the start of the
 * first message), and pending memory updates get until `WRAP_UP_MS` after the answer; what is not done
 * by then stays in the memory journal, and the next process that opens the home learns from it.
 */
import { randomUUID } from "node:crypto";
import type { BaseMessage } from "@langchain/core/messages";
import {
  type AppConfig,
  type ClarificationField,
  cancelledTaskResults,
  clarificationFromMessages,
  createHarness,
  describeRunError,
  HarnessError,
  type HarnessAgent,
  loadConfig,
  openPostgresThreadLeases,
  openThreadLeases,
  checkpointsPath,
  type ThreadLeases,
  isValidThreadId,
  resolveVirtualPath,
  resumeCommand,
  saveUploads,
  THREAD_ID_RULE,
} from "@deerflow/harness";
import type { AnswerPrinter } from "./answer-printer.js";
import { type PendingApproval, pendingApprovals } from "./human-input.js";
import type { AgentFlags } from "./args.js";
import { ProgressRenderer, textOf } from "./progress.js";
import { UsageError } from "./usage-error.js";

/** An agent bound to one thread. */
export interface Session {
  agent: HarnessAgent & { close(): Promise<void> };
  config: AppConfig;
  threadId: string;
  flags: AgentFlags;
  /** One run per thread across processes (see the harness's thread leases). */
  leases: ThreadLeases;
  /**
   * Releases the thread leases and closes the agent. With `wrapUp`, pending memory updates may finish
   * until `wrapUp.until` (epoch ms) or the signal; the rest stays journaled for the next process.
   */
  close(wrapUp?: { until: number; signal?: AbortSignal }): Promise<void>;
}

/** Seconds the title model gets after the answer before the thread keeps its fallback title. */
export const TITLE_BUDGET_SECONDS = 1.5;
/** After the answer, how long pending memory updates may still finish before the CLI exits. */
export const WRAP_UP_MS = 1500;

/** The outcome of one turn. */
export interface TurnResult {
  answer: string;
  /** The question when the agent stopped to ask for clarification. */
  clarification: string | null;
  /** The form of that question (v2), when it has one. */
  form: ClarificationField[] | null;
  /** Tool calls the run stopped on, waiting for the user's approval (`tool_policies: approval`). */
  approvals: PendingApproval[];
  values: Record<string, unknown> & { messages: BaseMessage[] };
}

/**
 * The config with the CLI's timings (see the module comment). A single-turn `run` also queues its
 * conversation for memory without the debounce: no next turn will come, and the update gets the whole
 * wrap-up to finish in.
 */
export function cliConfig(config: AppConfig, options: { singleTurn: boolean }): AppConfig {
  const titleTimeout = Math.min(config.llm_call.title_timeout_seconds, TITLE_BUDGET_SECONDS);
  return Object.freeze({
    ...config,
    llm_call: Object.freeze({ ...config.llm_call, title_timeout_seconds: titleTimeout }),
    memory: options.singleTurn ? Object.freeze({ ...config.memory, debounce_seconds: 0 }) : config.memory,
  });
}

/** Loads config and builds the agent the flags describe; `singleTurn` for `run`. */
export async function openSession(
  flags: AgentFlags,
  say: (line: string) => void,
  options: { singleTurn: boolean } = { singleTurn: false },
): Promise<Session> {
  if (flags.thread !== undefined && !isValidThreadId(flags.thread)) {
    throw new UsageError(`Thread id "${flags.thread}" is not valid: use ${THREAD_ID_RULE}.`);
  }
  const config = cliConfig(loadConfig({ path: flags.config }), options);
  const harness = await createHarness(config, { onWarning: (message) => say(`warning: ${message}`) });
  let built: HarnessAgent;
  try {
    built = harness.agent({
      model_name: flags.model,
      thinking_enabled: flags.thinking,
      is_plan_mode: flags.plan,
      subagent_enabled: flags.subagents || undefined,
      max_concurrent_subagents: flags.maxSubagents,
      agent_name: flags.agent,
    });
  } catch (error) {
    await harness.close();
    throw error;
  }
  const agent = Object.assign(built, { close: harness.close });
  const { entry, reason } = agent.deerflow.model;
  say(`model: ${entry.name}${entry.use === "demo" ? "" : ` (${entry.use})`}, ${reason}`);
  const sandbox = agent.deerflow.sandbox;
  say(
    `sandbox: ${sandbox.kind} (${sandbox.reason})${sandbox.bashAvailable ? "" : "; no bash tool (host bash is off)"}`,
  );
  // On Postgres the lease lives in the database, so runs on other machines are kept apart too.
  const postgres = harness.setup.postgres;
  const leases = postgres
    ? openPostgresThreadLeases(postgres.pool)
    : openThreadLeases(agent.deerflow.databaseFile ?? checkpointsPath(agent.deerflow.home));
  const close: Session["close"] = async (wrapUp) => {
    const memory = harness.memory(flags.agent);
    if (wrapUp && memory) await settleBy(memory.flush(), wrapUp.until, wrapUp.signal);
    await leases.close();
    await agent.close();
  };
  return { agent, config, threadId: flags.thread ?? randomUUID(), flags, leases, close };
}

/** Resolves when `work` settles, at `until` (epoch ms), or when `signal` aborts, whichever is first. */
async function settleBy(work: Promise<unknown>, until: number, signal?: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  await Promise.race([
    work.catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, until - Date.now()));
      onAbort = resolve;
      signal?.addEventListener("abort", onAbort, { once: true });
      if (signal?.aborted) resolve();
    }),
  ]);
  clearTimeout(timer);
  signal?.removeEventListener("abort", onAbort);
}

/** What a turn starts from: the user's message, `null` to resume an unfinished run, or answers to its interrupts. */
export type TurnInput = string | null | { resume: unknown };

/**
 * Runs one turn (`input` null resumes an unfinished run, `{resume}` answers its interrupts), renders its
 * progress and prints its answer with `answer` (none: the caller prints the result, as `--json` does).
 * `prepare` runs once the thread is held (e.g. copying uploads into it).
 */
export async function runTurn(
  session: Session,
  input: TurnInput,
  renderer: ProgressRenderer,
  signal?: AbortSignal,
  prepare?: () => Promise<void>,
  answer?: AnswerPrinter,
): Promise<TurnResult> {
  // Taken before the state is read: two runs on one thread would each lose the other's turn.
  const lease = await acquireThread(session, renderer, signal);
  renderer.shareTerminal(answer);
  try {
    await prepare?.();
    return await runHeldTurn(session, input, renderer, signal, answer);
  } catch (error) {
    answer?.abandon();
    throw error;
  } finally {
    renderer.shareTerminal(undefined);
    await session.agent.deerflow.afterRun(session.threadId);
    lease.release();
  }
}

/** Takes the thread's lease, waiting up to `--wait` seconds when another run holds it. */
async function acquireThread(session: Session, renderer: ProgressRenderer, signal?: AbortSignal) {
  const waitMs = session.flags.waitSeconds * 1000;
  const holder = await session.leases.holder(session.threadId);
  if (holder && waitMs > 0)
    renderer.line(
      `waiting: thread ${session.threadId} is busy (pid ${holder.pid}); waiting up to ${session.flags.waitSeconds} s`,
    );
  return session.leases.acquire(session.threadId, { waitMs, signal });
}

async function runHeldTurn(
  session: Session,
  input: TurnInput,
  renderer: ProgressRenderer,
  signal?: AbortSignal,
  answer?: AnswerPrinter,
): Promise<TurnResult> {
  const config = { configurable: { thread_id: session.threadId }, signal };
  const before = await session.agent.graph.getState(config);
  const saved = ((before.values as { messages?: BaseMessage[] }).messages ?? []) as BaseMessage[];
  renderer.markSeen(saved);
  if (input === null && before.next.length === 0) {
    throw new UsageError(`Thread ${session.threadId} has no unfinished run to resume. Give a task to continue it.`);
  }
  const payload =
    input === null
      ? null
      : typeof input === "string"
        ? { messages: [{ role: "user", content: input }] }
        : resumeCommand(input.resume);
  try {
    renderer.startSpinner();
    // "tasks" shows when the after-agent hooks (title, memory) start: the answer is final by then, and is
    // printed without waiting for them. "messages" (the model's tokens, so the model is called streamed)
    // only when the answer streams.
    const stream = await session.agent.stream(payload as never, {
      ...config,
      streamMode: answer?.streaming
        ? (["updates", "custom", "tasks", "messages"] as const)
        : (["updates", "custom", "tasks"] as const),
    });
    for await (const chunk of stream) {
      const [mode, data] = chunk as unknown as [string, unknown];
      if (mode === "messages") {
        answer?.onModelChunk(data);
        continue;
      }
      if (mode === "tasks") {
        const task = data as { name?: string; input?: { messages?: BaseMessage[] }; result?: unknown };
        if (
          answer &&
          !answer.answered &&
          task.name?.endsWith(".after_agent") &&
          !("result" in task) &&
          Array.isArray(task.input?.messages)
        ) {
          const early = summarizeTurn(task.input.messages);
          answer.final(early.answer, early.clarification !== null);
        }
        continue;
      }
      renderer.onChunk(mode, data);
    }
  } catch (error) {
    if (signal?.aborted) {
      await recordCancelledTasks(session, { configurable: config.configurable });
      throw new HarnessError(
        "run_interrupted",
        `Interrupted. The thread is saved; continue it with: deerflow run --thread ${session.threadId} "..."`,
      );
    }
    throw describeRunError(error, session.agent.deerflow.model.entry, session.threadId);
  } finally {
    renderer.stopSpinner();
  }
  const after = await session.agent.graph.getState(config);
  const values = after.values as TurnResult["values"];
  const approvals = pendingApprovals(after.tasks);
  const result = { ...summarizeTurn(values.messages ?? []), approvals, values };
  if (answer && !answer.answered && approvals.length === 0) answer.final(result.answer, result.clarification !== null);
  return result;
}

/** Copies files into the thread's uploads; the uploads middleware announces them to the model. */
export async function uploadFiles(
  session: Session,
  files: readonly string[],
  say: (line: string) => void,
): Promise<void> {
  if (files.length === 0) return;
  const limits = session.config.uploads;
  const stored = await saveUploads(session.agent.deerflow.home, session.threadId, files, {
    maxFiles: limits.max_files,
    maxFileSize: limits.max_file_size,
    maxTotalSize: limits.max_total_size,
  });
  for (const file of stored) say(`uploaded: ${file.filename} (${file.size} bytes) -> ${file.virtual_path}`);
}

/** The presented artifacts with the host paths where the user finds them. */
export function artifactLines(session: Session, artifacts: readonly string[]): string[] {
  return artifacts.map((virtualPath) => {
    try {
      return `${virtualPath} -> ${resolveVirtualPath(session.agent.deerflow.home, session.threadId, virtualPath)}`;
    } catch {
      return virtualPath;
    }
  });
}

/** After an interrupt, task calls still waiting for results are recorded as cancelled. */
async function recordCancelledTasks(session: Session, config: { configurable: { thread_id: string } }): Promise<void> {
  const state = await session.agent.graph.getState(config);
  const messages = ((state.values as { messages?: BaseMessage[] }).messages ?? []) as BaseMessage[];
  const cancelled = cancelledTaskResults(messages);
  if (cancelled.length > 0) await session.agent.graph.updateState(config, { messages: cancelled });
}

function summarizeTurn(messages: BaseMessage[]): {
  answer: string;
  clarification: string | null;
  form: ClarificationField[] | null;
} {
  const clarification = clarificationFromMessages(messages);
  if (clarification)
    return { answer: clarification.text, clarification: clarification.text, form: clarification.fields ?? null };
  const answer = [...messages].reverse().find((message) => message.getType() === "ai");
  return { answer: answer ? textOf(answer) : "", clarification: null, form: null };
}
