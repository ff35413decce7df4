/**
 * What `run` and `chat` share: building the agent from flags and config, and running one turn on a
 * thread while rendering progress. A turn that fails on the model keeps the thread's saved state (the
 * user's message is already checkpointed), so `--thread ID` can retry it.
 */
import { randomUUID } from "node:crypto";
import type { BaseMessage } from "@langchain/core/messages";
import {
  type AppConfig,
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
  saveUploads,
  THREAD_ID_RULE,
} from "@deerflow/harness";
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
  /** Releases the thread leases and closes the agent. */
  close(): Promise<void>;
}

/** The outcome of one turn. */
export interface TurnResult {
  answer: string;
  /** The question when the agent stopped to ask for clarification. */
  clarification: string | null;
  values: Record<string, unknown> & { messages: BaseMessage[] };
}

/** Loads config and builds the agent the flags describe. */
export async function openSession(flags: AgentFlags, say: (line: string) => void): Promise<Session> {
  if (flags.thread !== undefined && !isValidThreadId(flags.thread)) {
    throw new UsageError(`Thread id "${flags.thread}" is not valid: use ${THREAD_ID_RULE}.`);
  }
  const config = loadConfig({ path: flags.config });
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
  const close = async () => {
    await leases.close();
    await agent.close();
  };
  return { agent, config, threadId: flags.thread ?? randomUUID(), flags, leases, close };
}

/**
 * Runs one turn (`input` null resumes an unfinished run) and renders its progress. `prepare` runs once
 * the thread is held (e.g. copying uploads into it).
 */
export async function runTurn(
  session: Session,
  input: string | null,
  renderer: ProgressRenderer,
  signal?: AbortSignal,
  prepare?: () => Promise<void>,
  onAnswer?: (early: Omit<TurnResult, "values">) => void,
): Promise<TurnResult> {
  // Taken before the state is read: two runs on one thread would each lose the other's turn.
  const lease = await acquireThread(session, renderer, signal);
  try {
    await prepare?.();
    return await runHeldTurn(session, input, renderer, signal, onAnswer);
  } finally {
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
  input: string | null,
  renderer: ProgressRenderer,
  signal?: AbortSignal,
  onAnswer?: (early: Omit<TurnResult, "values">) => void,
): Promise<TurnResult> {
  const config = { configurable: { thread_id: session.threadId }, signal };
  const before = await session.agent.graph.getState(config);
  const saved = ((before.values as { messages?: BaseMessage[] }).messages ?? []) as BaseMessage[];
  renderer.markSeen(saved);
  if (input === null && before.next.length === 0) {
    throw new UsageError(`Thread ${session.threadId} has no unfinished run to resume. Give a task to continue it.`);
  }
  const payload = input === null ? null : { messages: [{ role: "user", content: input }] };
  try {
    renderer.startSpinner();
    // "tasks" shows when the after-agent hooks (title, memory) start: the answer is final by then, and
    // `onAnswer` can show it without waiting for a slow title model.
    const stream = await session.agent.stream(payload as never, {
      ...config,
      streamMode: ["updates", "custom", "tasks"] as const,
    });
    let answered = false;
    for await (const chunk of stream) {
      const [mode, data] = chunk as unknown as [string, unknown];
      if (mode === "tasks") {
        const task = data as { name?: string; input?: { messages?: BaseMessage[] }; result?: unknown };
        if (
          !answered &&
          onAnswer &&
          task.name?.endsWith(".after_agent") &&
          !("result" in task) &&
          Array.isArray(task.input?.messages)
        ) {
          answered = true;
          onAnswer(summarizeTurn(task.input.messages));
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
  return { ...summarizeTurn(values.messages ?? []), values };
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

function summarizeTurn(messages: BaseMessage[]): { answer: string; clarification: string | null } {
  const clarification = clarificationFromMessages(messages);
  if (clarification) return { answer: clarification.text, clarification: clarification.text };
  const answer = [...messages].reverse().find((message) => message.getType() === "ai");
  return { answer: answer ? textOf(answer) : "", clarification: null };
}
