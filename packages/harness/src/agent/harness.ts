/**
 * The harness: config resolved once into one setup value plus the services that live as long as the
 * process (checkpointer, history archive, sandbox provider, memory services, config tools, model cache),
 * and `agent(runOptions)`, which builds the lead graph for one option set over those shared services.
 *
 * Why the split: a server receives `model_name`, `is_plan_mode`, `subagent_enabled`, ... per request, so
 * the graph is per option set while the expensive, stateful parts (one SQLite connection, one sandbox
 * per thread, one memory queue per agent) must be shared by every run. `createLeadAgent` is the one-agent
 * wrapper over this; the CLI and the server use the harness directly.
 */
import path from "node:path";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { type AgentMiddleware, createAgent } from "langchain";
import type { AppConfig, ModelEntry } from "../config/schema.js";
import { HarnessError } from "../errors.js";
import { createLogger, type Logger } from "../logger.js";
import { mergeHistory } from "../history/format-history.js";
import {
  asyncArchive,
  type AsyncHistoryArchive,
  createHistoryArchive,
  type HistoryArchive,
  type HistoryEntry,
} from "../history/history-archive.js";
import { createPostgresHistoryArchive } from "../history/postgres-history-archive.js";
import type { McpService } from "../mcp/mcp-service.js";
import { openMcpService } from "../mcp/open-mcp-service.js";
import { TOOL_SEARCH_TOOL_NAME } from "../mcp/tool-search.js";
import { type AdoptedMemory, adoptLocalMemory } from "../memory/adopt-local-memory.js";
import { normaliseUserId } from "../memory/memory-path.js";
import type { MemoryService } from "../memory/memory-service.js";
import { resumePendingMemory } from "../memory/resume-pending.js";
import { loadChatModelProviders } from "../model/chat-model-providers.js";
import { createChatModel } from "../model/create-chat-model.js";
import { availableModels, type ModelSelection, selectModel } from "../model/select-model.js";
import { countTokens, createTokenCounter } from "../model/tokens.js";
import { createSandboxProvider } from "../sandbox/provider.js";
import type { SandboxKind, SandboxProvider } from "../sandbox/sandbox.js";
import { type PreparedSkills, prepareSkills } from "../skills/prepare-skills.js";
import type { BeforeSummarizationHook, Compactor } from "../middleware/summarization/index.js";
import { ThreadStateSchema } from "../state/thread-state.js";
import { type CheckpointStore, openCheckpointStore } from "../storage/checkpointer.js";
import { createPostgresPruner } from "../storage/postgres-retention.js";
import {
  type CheckpointPruner,
  createSqlitePruner,
  type PruneGuard,
  type PruneReport,
  reclaimSpace,
} from "../storage/retention.js";
import { databaseFile, resolveHome } from "../storage/home.js";
import { openPostgresDatabase, type PostgresDatabase, resolveDatabaseUrl } from "../storage/postgres-database.js";
import { clampMaxConcurrent, clampMaxTotal } from "../subagents/concurrency.js";
import { renderSubagentPromptSection } from "../subagents/prompt-section.js";
import { createSubagentRegistry } from "../subagents/registry.js";
import type { CreateSubagent, SubagentGraph } from "../subagents/types.js";
import { askClarificationTool } from "../tools/ask-clarification.js";
import { createHistoryReadTool } from "../tools/history-read.js";
import { createReadConversationTool } from "../tools/read-conversation.js";
import { createSearchHistoryTool } from "../tools/search-history.js";
import { createTaskNoteTool } from "../tools/task-note.js";
import { loadConfigTools } from "../tools/load-config-tools.js";
import { createSandboxTools } from "../tools/sandbox-tools.js";
import { createTaskTool } from "../tools/task.js";
import { BATCH_TASK_TOOL_NAME, createBatchTaskTool } from "../tools/batch-task.js";
import type { BatchStore } from "../batch/store.js";
import { openSqliteBatchStore } from "../batch/sqlite-store.js";
import { openPostgresBatchStore } from "../batch/postgres-store.js";
import { runLeaseMs } from "../storage/thread-lease.js";
import { createBackgroundTasksTool } from "../tools/background-tasks.js";
import { BackgroundTasks } from "../subagents/background.js";
import { SubagentQueue } from "../subagents/queue.js";
import { createWebTools } from "../tools/web/create-web-tools.js";
import { withoutSchemaDialect } from "../tools/tool-args.js";
import { createSetupAgentTool, createUpdateAgentTool } from "../tools/agent-tools.js";
import type { AgentDefinition } from "../custom-agents/agent-definition.js";
import { type AgentStore, createAgentStore } from "../custom-agents/agent-store.js";
import { restrictSkills, restrictTools } from "../custom-agents/restrict.js";
import { renderWebPromptSection } from "../tools/web/prompt-section.js";
import { composeChain } from "./compose-chain.js";
import { buildLeadChain, buildSubagentChain, type LeadRuntime } from "./lead-agent-chain.js";
import { type CompactThreadOptions, type ThreadCompactResult, compactThread } from "./compact-thread.js";
import { createLeadMemory, memoryLearns } from "./lead-memory.js";
import { promptDate, renderLeadPrompt } from "./prompt.js";

/** Graph steps allowed per run unless the invoke config says otherwise. */
export const DEFAULT_RECURSION_LIMIT = 1000;

/** Per-run options, named as in DeerFlow's `configurable` / `context`. */
export interface AgentRunOptions {
  model_name?: string;
  thinking_enabled?: boolean;
  is_plan_mode?: boolean;
  subagent_enabled?: boolean;
  max_concurrent_subagents?: number;
  /** Cap on `task` calls per run; default `subagents.max_total_per_run`, clamped to [1, 50]. */
  max_total_subagents?: number;
  agent_name?: string;
  /**
   * The conversation that sets up the custom agent `agent_name` (DeerFlow's bootstrap): the agent need not
   * exist yet, its settings are not applied, and the model gets `setup_agent` to save it.
   */
  is_bootstrap?: boolean;
  /**
   * Nobody can answer a question (a scheduled or webhook run): `ask_clarification` is not offered and the
   * model is told to proceed on its best assumption. DeerFlow's run-context flag of the same name.
   */
  disable_clarification?: boolean;
  /**
   * The user the run is for: their memory is injected and learns from it (`{root}/users/{id}`). Absent:
   * the local (ownerless) user. Letters, digits, "-" and "_", 1 to 64 characters, else `ConfigError`.
   */
  user_id?: string;
}

/** Process-wide options: what only code can pass, and where the harness keeps its files. */
export interface HarnessOptions {
  /**
   * A chat model instance to use instead of building one from the selected entry (tests, benchmarks,
   * providers we have no `use:` for). The entry still supplies its settings (vision, input window).
   */
  chatModel?: BaseChatModel;
  /** Extra langchain tools, added after the built-in and config (`tools:`) ones. Names must not collide. */
  tools?: readonly StructuredToolInterface[];
  /** Extra middlewares, inserted before `clarification`. */
  middleware?: readonly AgentMiddleware[];
  /**
   * Called with the messages compaction is about to remove from a lead thread (automatic or `/compact`),
   * after the built-in memory flush. A hook that throws is logged; compaction and the run go on.
   */
  beforeSummarization?: readonly BeforeSummarizationHook[];
  /** The home directory (default: `DEER_FLOW_HOME` or `./.deer-flow`). */
  home?: string;
  /** A checkpointer to use instead of `{home}/checkpoints.sqlite`; `false` for none. */
  checkpointer?: BaseCheckpointSaver | false;
  env?: Record<string, string | undefined>;
  /** Receives warnings (thinking downgraded, skipped skills, ...). Defaults to the logger's `warn`. */
  onWarning?: (message: string) => void;
  /**
   * A long-lived MCP service shared across harnesses (the caller closes it). Absent: the harness opens
   * one from `mcp_servers` / `extensions_config.json` and closes it in `close()`. `false`: no MCP tools.
   */
  mcp?: McpService | false;
  /** The harness log. Default: stderr at the config's `log_level`. */
  logger?: Logger;
  /** How many compiled graphs (one per option set) are kept (default 16). */
  agentCacheSize?: number;
  /** Applies `checkpoints.retention` after runs; default: the built-in SQLite or Postgres store's (none with a checkpointer from code). */
  pruner?: CheckpointPruner;
  /** Who may read which thread with `read_conversation`; default {@link localThreadAccess}. The server sets its owner check with `setThreadAccess`. */
  threadAccess?: ThreadAccess;
}

/**
 * Whether user `userId` (undefined: the home's local user) may read thread `threadId` with
 * `read_conversation`. Called when the tool runs, so a server can install its check after start.
 */
export type ThreadAccess = (threadId: string, userId: string | undefined) => boolean | Promise<boolean>;

/** Without a server: the home's local user reads any thread of the home; a named user none (fail closed). */
export const localThreadAccess: ThreadAccess = (_threadId, userId) => userId === undefined;

/** What was decided while building an agent, for the CLI and the server to report. */
export interface LeadAgentInfo {
  home: string;
  /** The SQLite file of checkpoints, history archive and thread leases (null on Postgres or with a checkpointer from code). */
  databaseFile: string | null;
  model: ModelSelection;
  sandbox: { kind: SandboxKind; reason: string; bashAvailable: boolean };
  toolNames: string[];
  middlewareNames: string[];
  runtime: LeadRuntime;
  systemPrompt: string;
  /**
   * Call once a run on `threadId` has ended (any outcome): applies `checkpoints.retention`. Never throws.
   * With a `guard`, a store that can check it in the prune's transaction does (see `PruneReport.guard`).
   */
  afterRun(threadId: string, guard?: PruneGuard): Promise<PruneReport>;
  /** The chain's compaction, for manual `/compact`; absent when summarization is off. */
  compact?: Compactor;
}

/**
 * The config resolved once: every value the lead and subagent chains are built from, and the services
 * shared by every agent the harness builds.
 */
export interface HarnessSetup {
  config: AppConfig;
  home: string;
  env: Record<string, string | undefined>;
  onWarning: (message: string) => void;
  logger: Logger;
  /** The enabled skills (the sandbox shows their read-only view at the container path) and the disabled names. */
  skills: PreparedSkills;
  sandbox: SandboxProvider;
  /** The built-in SQLite store, or null when a checkpointer was given in code (or none). */
  store: CheckpointStore | null;
  checkpointer?: BaseCheckpointSaver;
  /** The Postgres database (database.backend postgres): checkpoints, and the server's runs and events. */
  postgres?: PostgresDatabase;
  /** Applies `checkpoints.retention` once a run is over. */
  pruner?: CheckpointPruner;
  /** The SQLite history archive, synchronous (absent on Postgres and with a checkpointer from code). */
  archive?: HistoryArchive;
  /** The history archive every caller uses: Postgres's on Postgres, else the SQLite one behind promises. */
  threadArchive?: AsyncHistoryArchive;
  /** The `batch_task` tables (SQLite beside the checkpoints, or Postgres); absent with a checkpointer from code. */
  batchStore?: BatchStore;
  /** Background subagents of every lead this harness builds, per thread (`task(run_in_background)`). */
  backgroundTasks: BackgroundTasks;
  /** The bound on subagents running at once across every lead this harness builds (`subagents.queue`). */
  subagentQueue: SubagentQueue;
  /** The `read_conversation` access check in force (see {@link ThreadAccess}). */
  threadAccess: ThreadAccess;
  /** Tools from the config's `tools:` section, loaded once. */
  configTools: StructuredToolInterface[];
  /** Tools of the connected MCP servers, listed once (renamed on a clash with any other tool name). */
  mcpTools: StructuredToolInterface[];
  /** The MCP tools withheld behind `tool_search` (empty: every tool is bound as usual). */
  deferredTools: StructuredToolInterface[];
  /** The model chosen when a run names none. */
  defaultModel: ModelSelection;
  /** Custom agents (SOUL.md and settings per agent and owner). */
  agents: AgentStore;
  options: HarnessOptions;
}

/** Builds the compiled lead agent for one option set. */
function buildAgent(
  setup: HarnessSetup,
  run: AgentRunOptions,
  models: ModelCache,
  memoryFor: (agentName?: string, userId?: string) => MemoryService | null,
  definition?: AgentDefinition,
) {
  const { config, env, onWarning, sandbox, options } = setup;
  const settings = definition?.settings;
  // Request first, then the custom agent's own choice, then the config's default (DeerFlow's order).
  const selection = selectModel(
    config,
    {
      modelName: run.model_name ?? settings?.model ?? undefined,
      thinkingEnabled: run.thinking_enabled ?? settings?.thinking_enabled ?? undefined,
    },
    env,
  );
  selection.warnings.forEach(onWarning);
  const entry = withModelSettings(selection.entry, settings?.model_settings);
  const model = options.chatModel ?? models.get(entry, selection.thinkingEnabled, callTimeout(config, entry));

  const runtime: LeadRuntime = {
    isPlanMode: run.is_plan_mode ?? false,
    subagentEnabled: run.subagent_enabled ?? config.subagents.enabled,
    maxConcurrentSubagents: clampMaxConcurrent(run.max_concurrent_subagents ?? config.subagents.max_concurrent),
    maxTotalSubagents: clampMaxTotal(run.max_total_subagents ?? config.subagents.max_total_per_run),
    agentName: run.agent_name,
    clarificationDisabled: run.disable_clarification ?? false,
  };
  const memory = memoryFor(runtime.agentName, run.user_id);

  const tools: StructuredToolInterface[] = [...builtinTools(setup, selection.entry.supports_vision)];
  const checkpointer = setup.checkpointer;
  if (checkpointer) {
    // Checked when the tool runs: the server installs its owner check after the harness is built.
    const mayRead = (threadId: string) => setup.threadAccess(threadId, run.user_id);
    tools.push(createReadConversationTool({ checkpointer, mayRead }));
  }
  const registry = createSubagentRegistry({
    bashAllowed: sandbox.bashAvailable,
    maxTurns: config.subagents.max_turns ?? undefined,
    timeoutSeconds: config.subagents.timeout_seconds,
    tokenBudget: config.subagents.token_budget,
    overrides: config.subagents.agents,
    customAgents: config.subagents.custom_agents,
    allowed: settings?.subagents ?? undefined,
  });
  if (runtime.subagentEnabled) {
    const createSubagent = subagentFactory(setup, selection.entry, models);
    tools.push(
      createTaskTool({
        registry,
        createSubagent,
        parentTools: () => tools.filter((candidate) => candidate.name !== BATCH_TASK_TOOL_NAME),
        defaultTimeoutSeconds: config.subagents.timeout_seconds,
        background: { tasks: setup.backgroundTasks, maxRunning: runtime.maxConcurrentSubagents },
        queue: setup.subagentQueue,
      }),
      createBackgroundTasksTool({ tasks: setup.backgroundTasks }),
    );
    if (setup.batchStore) {
      tools.push(
        createBatchTaskTool({
          store: setup.batchStore,
          provider: sandbox,
          model,
          registry,
          createSubagent,
          parentTools: () => tools,
          owner: run.user_id,
          leaseMs: runLeaseMs(env),
        }),
      );
    }
  }
  const owner = run.user_id ?? null;
  const checkModel = (name: string) => void selectModel(config, { modelName: name }, env);
  if (run.agent_name && run.is_bootstrap)
    tools.push(createSetupAgentTool({ store: setup.agents, agentName: run.agent_name, owner, checkModel }));
  else if (definition)
    tools.push(createUpdateAgentTool({ store: setup.agents, agentName: definition.name, owner, checkModel }));
  // The built-in tools go out without zod's `$schema` line, which every request would carry (context-engineering.md).
  for (const tool of tools) withoutSchemaDialect(tool);
  tools.push(...setup.configTools);
  tools.push(...(options.tools ?? []));
  // MCP tools come last and were renamed on a clash, so they never break the built-in names.
  tools.push(...setup.mcpTools);
  assertUniqueToolNames(tools);
  let deferredTools = setup.deferredTools;
  let skills = setup.skills.enabled;
  if (settings) {
    // In place: the task tool hands subagents the lead's tools, so they inherit the agent's restriction.
    const groups = new Map(config.tools.flatMap((entry) => (entry.group ? [[entry.name, entry.group] as const] : [])));
    tools.splice(0, tools.length, ...restrictTools(tools, settings, groups));
    deferredTools = restrictTools(deferredTools, settings, groups);
    skills = restrictSkills(skills, settings.skills);
  }

  const systemPrompt = renderLeadPrompt({
    agentName: run.is_bootstrap ? undefined : runtime.agentName,
    soul: definition?.soul,
    selfUpdate: definition !== undefined,
    bootstrapAgent: run.is_bootstrap ? run.agent_name : undefined,
    skills,
    skillsContainerPath: config.skills.container_path,
    subagentSection: runtime.subagentEnabled
      ? renderSubagentPromptSection({
          maxConcurrent: runtime.maxConcurrentSubagents,
          maxTotal: runtime.maxTotalSubagents,
          background: true,
          types: registry.list(),
        })
      : undefined,
    bashAvailable: tools.some((tool) => tool.name === "bash"),
    mounts: config.sandbox.mounts.map((mount) => ({ containerPath: mount.container_path, readOnly: mount.read_only })),
    webSection: renderWebPromptSection(tools.map((tool) => tool.name)),
    memoryBlock: memory?.promptBlock(),
    date: promptDate(),
    clarificationDisabled: runtime.clarificationDisabled,
  });

  const modelId = selection.entry.model;
  const middleware = buildLeadChain({
    config,
    runtime,
    home: setup.home,
    modelEntry: selection.entry,
    sandbox,
    summaryModels: summaryModels(setup, model, selection.entry, models),
    titleModel: titleModel(setup, selection.entry, models),
    tokenCounter: createTokenCounter(modelId),
    overheadTokens: countTokens([], {
      model: modelId,
      systemPrompt,
      tools: tools.filter((tool) => !deferredTools.includes(tool)),
    }),
    archive: setup.threadArchive,
    memory,
    memoryLearns: memoryLearns(config, { runModel: setup.defaultModel, chatModel: options.chatModel, env }),
    beforeSummarization: options.beforeSummarization,
    custom: options.middleware ?? [],
    deferredTools,
    backgroundTasks: setup.backgroundTasks,
    readConversation: checkpointer !== undefined,
    skills: { skills, disabled: setup.skills.disabled },
    onWarning,
    logger: setup.logger,
  });

  // The chain reaches createAgent composed: one graph node per hook phase (compose-chain.ts). Each is still a
  // graph step (four per model-and-tools round), so langchain's default limit of 25 would stop a run after a
  // few rounds; DeerFlow's ceiling of 1000 allows about two hundred.
  const agent = createAgent({
    model,
    tools,
    systemPrompt,
    stateSchema: ThreadStateSchema,
    middleware: composeChain(middleware, undefined, { afterModelInModelCall: true }),
    checkpointer: setup.checkpointer,
  }).withConfig({
    recursionLimit: DEFAULT_RECURSION_LIMIT,
  });
  const info: LeadAgentInfo = {
    home: setup.home,
    databaseFile: setup.store?.file ?? null,
    model: selection,
    sandbox: { kind: sandbox.kind, reason: sandbox.reason, bashAvailable: sandbox.bashAvailable },
    toolNames: [...tools.map((tool) => tool.name), ...(deferredTools.length > 0 ? [TOOL_SEARCH_TOOL_NAME] : [])],
    middlewareNames: middleware.map((entry) => entry.name),
    runtime,
    systemPrompt,
    afterRun: (threadId, guard) => afterRun(setup, threadId, guard),
    compact: (middleware.find((entry) => entry.name === "summarization") as { compact?: Compactor } | undefined)
      ?.compact,
  };
  return Object.assign(agent, { deerflow: info });
}

const NOTHING_PRUNED: PruneReport = { threads: 0, checkpoints: 0, writes: 0 };
/** Free space below which afterRun leaves the pages for later checkpoints to reuse. */
const RECLAIM_FLOOR_BYTES = 1 << 20;

/** The page counts `worthReclaiming` reads, compiled once per database (afterRun reads them after every run). */
const pageCounts = new WeakMap<CheckpointStore["db"], () => { free: number; pages: number; size: number }>();

function worthReclaiming(db: CheckpointStore["db"]): boolean {
  let read = pageCounts.get(db);
  if (!read) {
    const statement = db.prepare<[], { free: number; pages: number; size: number }>(
      "SELECT f.freelist_count AS free, c.page_count AS pages, s.page_size AS size FROM pragma_freelist_count() f, pragma_page_count() c, pragma_page_size() s",
    );
    read = () => statement.get()!;
    pageCounts.set(db, read);
  }
  const { free, pages, size } = read();
  return free * 4 > pages && free * size >= RECLAIM_FLOOR_BYTES;
}

/**
 * Applies the retention policy to a thread whose run just ended, off the run's own path. A failure
 * is logged, not thrown: the run's result stands and the next prune catches up.
 */
async function afterRun(setup: HarnessSetup, threadId: string, guard?: PruneGuard): Promise<PruneReport> {
  const policy = setup.config.checkpoints.retention;
  if (policy === "all" || !setup.pruner) return NOTHING_PRUNED;
  try {
    const report = await setup.pruner.pruneThread(threadId, policy, guard);
    const db = setup.store?.db;
    // Freed pages are reused by later checkpoints; hand them back to the file system only when many pile up:
    // a quarter of the file and at least RECLAIM_FLOOR_BYTES (a small thread's file would otherwise be
    // vacuumed after nearly every run, the larger part of afterRun's time).
    if (db?.open && report.checkpoints > 0 && worthReclaiming(db)) reclaimSpace(db, false);
    return report;
  } catch (error) {
    setup.logger.warn(
      `checkpoint retention on thread ${threadId} failed (nothing was lost; \`deerflow threads prune\` retries): ${(error as Error).message}`,
    );
    return NOTHING_PRUNED;
  }
}

/** The compiled lead graph `harness.agent()` returns. */
export type HarnessAgent = ReturnType<typeof buildAgent>;

/** Long-lived services plus a cached agent per option set. */
export interface Harness {
  readonly setup: HarnessSetup;
  /** The home directory. */
  readonly home: string;
  /** Sandbox kind and why it was chosen. */
  readonly sandbox: LeadAgentInfo["sandbox"];
  /** The model a run without `model_name` uses. */
  readonly defaultModel: ModelSelection;
  /** Custom agents: what a run with `agent_name` applies (docs/agents.md). */
  readonly agents: AgentStore;
  /**
   * The lead graph for these options, built on first use and cached (LRU). Options that cannot be
   * honoured (unknown model, bad agent name or user id) throw a HarnessError before any model call.
   */
  agent(run?: AgentRunOptions): HarnessAgent;
  /**
   * The memory service of an agent (undefined name = the default agent) of a user (undefined = the local
   * user), or null when memory is off. A bad agent name or user id throws `ConfigError`.
   */
  memory(agentName?: string, userId?: string): MemoryService | null;
  /**
   * Gives the local (ownerless) memory to `userId` (see `adoptLocalMemory`): closes the local memory
   * services (their unfinished conversations go to the user too), moves the files, drops cached graphs
   * and resumes the moved conversations in the user's memory.
   */
  adoptLocalMemory(userId: string): Promise<AdoptedMemory>;
  /** Drops every cached graph (after skills or memory changed on disk). */
  invalidate(): void;
  /** Replaces who may read which thread with `read_conversation` (the server installs its owner check). */
  setThreadAccess(access: ThreadAccess): void;
  /**
   * Re-reads the installed skills and their enabled state (after `extensions_config.json` changed),
   * rebuilds the read-only skills view and drops cached graphs, so the next run's prompt and new
   * sandboxes show the new set. Returns the prepared skills.
   */
  reloadSkills(): PreparedSkills;
  /** Saved thread ids, most recently updated first (empty without the built-in SQLite store). */
  listThreadIds(): string[];
  /** A thread's whole conversation: the archived (compacted) messages with markers, then the live ones. */
  history(threadId: string): Promise<HistoryEntry[]>;
  /** Call once a run on `threadId` has ended (CLI session, server worker): applies `checkpoints.retention`. */
  afterRun(threadId: string, guard?: PruneGuard): Promise<PruneReport>;
  /**
   * Compacts a thread now (`/compact`): its older messages become the summary, with the summarizer and
   * hooks of the agent `run` selects. Call it between runs. See `compactThread` for the errors.
   */
  compact(threadId: string, options?: CompactThreadOptions & { run?: AgentRunOptions }): Promise<ThreadCompactResult>;
  /**
   * Stops memory (unfinished updates stay journaled for the next process; `memory()?.flush()` first to
   * wait for them), releases sandboxes, closes the database. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Resolves the config once and opens the shared services.
 *
 * @example
 * const harness = await createHarness(loadConfig());
 * const agent = harness.agent({ is_plan_mode: true });
 * await agent.invoke({ messages: [{ role: "user", content: "Plan a trip" }] }, { configurable: { thread_id: "t1" } });
 * await harness.close();
 */
export async function createHarness(config: AppConfig, options: HarnessOptions = {}): Promise<Harness> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? createLogger({ level: config.log_level });
  const onWarning = options.onWarning ?? ((message: string) => logger.warn(message));
  const home = resolveHome({ home: options.home, env });
  const defaultModel = selectModel(config, {}, env);
  await loadChatModelProviders(availableModels(config, env).models);

  const configTools = await loadConfigTools(
    config.tools,
    config.source ? path.dirname(config.source) : process.cwd(),
    onWarning,
  );
  // The sandbox shows a projection of the enabled skills (bundled + the user's), not skills.path itself.
  const readSkills = () =>
    prepareSkills({
      skillsPath: path.resolve(config.skills.path),
      containerPath: config.skills.container_path,
      home,
      env,
      onWarning,
    });
  const skills = readSkills();
  const sandbox = createSandboxProvider({
    use: config.sandbox.use,
    home,
    skillsPath: skills.viewDir,
    skillsContainerPath: config.skills.container_path,
    allowHostBash: config.sandbox.allow_host_bash,
    bashTimeoutSeconds: config.sandbox.bash_command_timeout,
    bashOutputMaxChars: config.sandbox.bash_output_max_chars,
    mounts: config.sandbox.mounts.map((mount) => ({
      hostPath: mount.host_path,
      containerPath: mount.container_path,
      readOnly: mount.read_only,
    })),
  });
  const postgresUrl =
    config.database.backend === "postgres" && options.checkpointer === undefined
      ? resolveDatabaseUrl(config.database, env)
      : null;
  if (config.database.backend !== "postgres" && (config.database.postgres_url || config.database.url)) {
    onWarning("database.url is ignored: database.backend is sqlite.");
  }
  const ownMcp = options.mcp === undefined ? openMcpService(config, { env, onWarning }) : undefined;
  const mcp = options.mcp || ownMcp;
  const setup: HarnessSetup = {
    config,
    home,
    env,
    onWarning,
    logger,
    skills,
    sandbox,
    store: null,
    backgroundTasks: new BackgroundTasks(),
    subagentQueue: new SubagentQueue({
      maxRunning: config.subagents.queue.max_running,
      maxWaiting: config.subagents.queue.max_waiting,
      waitTimeoutSeconds: config.subagents.queue.wait_timeout_seconds,
      rejectPolicy: config.subagents.queue.reject_policy,
    }),
    threadAccess: options.threadAccess ?? localThreadAccess,
    configTools,
    mcpTools: [],
    deferredTools: [],
    defaultModel,
    agents: createAgentStore(home, { onWarning }),
    options,
  };
  try {
    // Listed once for every agent: a clash with any built-in, config or code tool name renames the MCP tool.
    // `bash` is reserved whether or not it is offered: asking would prove bubblewrap now (sandbox/provider.ts).
    const reserved = [
      "bash",
      ...builtinTools({ ...setup, sandbox: withoutBash(setup.sandbox) }, true),
      ...configTools,
      ...(options.tools ?? []),
    ].map((tool) => (typeof tool === "string" ? tool : tool.name));
    setup.mcpTools = mcp
      ? await mcp.tools({ reservedNames: [...reserved, "task", BATCH_TASK_TOOL_NAME, TOOL_SEARCH_TOOL_NAME] })
      : [];
  } catch (error) {
    await ownMcp?.close();
    throw error;
  }
  setup.deferredTools =
    config.tool_search.enabled && setup.mcpTools.length > config.tool_search.threshold ? setup.mcpTools : [];
  let postgres: PostgresDatabase | null = null;
  if (postgresUrl) {
    try {
      postgres = await openPostgresDatabase(postgresUrl);
    } catch (error) {
      await ownMcp?.close();
      throw error;
    }
  }
  setup.postgres = postgres ?? undefined;
  const store =
    options.checkpointer === undefined && !postgres ? openCheckpointStore(databaseFile(home, config.database)) : null;
  setup.store = store;
  setup.batchStore = store
    ? openSqliteBatchStore(store.db)
    : postgres
      ? openPostgresBatchStore(postgres.pool)
      : undefined;
  setup.archive = store ? createHistoryArchive(store.file) : undefined;
  // On Postgres the archive is in the database too, so every process sees a thread's compacted messages.
  setup.threadArchive = postgres
    ? createPostgresHistoryArchive(postgres.pool)
    : setup.archive && asyncArchive(setup.archive);
  setup.checkpointer =
    options.checkpointer === false ? undefined : (options.checkpointer ?? postgres?.saver ?? store!.saver);
  setup.pruner =
    options.pruner ??
    (store ? createSqlitePruner(store.db) : postgres ? createPostgresPruner(postgres.pool) : undefined);
  const archive = setup.threadArchive;

  const models = new ModelCache();
  // One service per agent and user.
  const memories = new Map<string, { userId: string | undefined; service: MemoryService | null }>();
  const memoryFor = (agentName?: string, userId?: string): MemoryService | null => {
    if (agentName !== undefined && !/^[A-Za-z0-9-]+$/.test(agentName)) {
      throw new HarnessError(
        "config_invalid",
        `Agent name "${agentName}" is not valid: use letters, digits and "-" only.`,
      );
    }
    normaliseUserId(userId);
    const key = JSON.stringify([agentName ?? null, userId ?? null]);
    if (!memories.has(key))
      memories.set(key, {
        userId,
        service: createLeadMemory(config, {
          home,
          agentName,
          userId,
          runModel: defaultModel,
          chatModel: options.chatModel,
          env,
          onWarning,
          logger,
        }),
      });
    return memories.get(key)!.service;
  };
  // Conversations earlier processes journaled but never learned from are learned from now, in the background.
  resumePendingMemory(config, home, memoryFor, onWarning);

  const cacheSize = Math.max(1, options.agentCacheSize ?? 16);
  const agents = new Map<string, HarnessAgent>();
  const agent = (run: AgentRunOptions = {}): HarnessAgent => {
    const definition = run.agent_name && !run.is_bootstrap ? customAgent(setup.agents, run) : undefined;
    // The memory block is part of the system prompt, so a changed memory file means a new graph; the user
    // id is part of the option key, so each user's graph carries their own block and memory middleware.
    // The agent's soul and settings are read on every call, so an edit reaches the next run.
    const memory = memoryFor(run.agent_name, run.user_id);
    const key = JSON.stringify([
      optionKey(run),
      memory?.promptBlock() ?? "",
      definition ? [definition.settings, definition.soul] : null,
    ]);
    const cached = agents.get(key);
    if (cached) {
      agents.delete(key);
      agents.set(key, cached);
      return cached;
    }
    const built = buildAgent(setup, run, models, memoryFor, definition);
    agents.set(key, built);
    while (agents.size > cacheSize) agents.delete(agents.keys().next().value!);
    return built;
  };

  let closed = false;
  let reader: HarnessAgent | undefined;
  return {
    setup,
    home,
    // Read when asked: the provider proves bubblewrap on first use (sandbox/provider.ts).
    sandbox: {
      get kind() {
        return sandbox.kind;
      },
      get reason() {
        return sandbox.reason;
      },
      get bashAvailable() {
        return sandbox.bashAvailable;
      },
    },
    defaultModel,
    agents: setup.agents,
    agent,
    memory: memoryFor,
    async adoptLocalMemory(userId) {
      normaliseUserId(userId);
      for (const [key, memory] of memories) {
        if (memory.userId !== undefined) continue;
        memories.delete(key);
        await memory.service?.close(); // its unfinished conversations are released in the journal, then moved
      }
      const adopted = adoptLocalMemory(home, config, userId, { onWarning });
      setup.agents.adoptLocal(userId);
      agents.clear();
      resumePendingMemory(config, home, memoryFor, onWarning);
      return adopted;
    },
    invalidate: () => agents.clear(),
    setThreadAccess: (access) => {
      setup.threadAccess = access;
    },
    reloadSkills() {
      setup.skills = readSkills();
      sandbox.setSkillsPath?.(setup.skills.viewDir);
      agents.clear();
      return setup.skills;
    },
    listThreadIds: () => store?.listThreadIds() ?? [],
    afterRun: (threadId, guard) => afterRun(setup, threadId, guard),
    compact: (threadId, { run, ...compaction } = {}) => compactThread(agent(run), threadId, compaction),
    async history(threadId) {
      reader ??= agents.values().next().value ?? agent({});
      const state = await reader.graph.getState({ configurable: { thread_id: threadId } });
      const live = ((state.values as { messages?: BaseMessage[] }).messages ?? []) as BaseMessage[];
      return mergeHistory((await archive?.read(threadId)) ?? [], live);
    },
    async close() {
      if (closed) return;
      closed = true;
      agents.clear();
      try {
        await setup.backgroundTasks.closeAll();
        for (const memory of memories.values()) await memory.service?.close();
        await sandbox.shutdown();
        await ownMcp?.close();
      } finally {
        await archive?.close();
        store?.close();
        await postgres?.close();
      }
    },
  };
}

/** Chat models built from config entries, one per (entry, thinking) pair. */
class ModelCache {
  private readonly models = new Map<string, BaseChatModel>();
  get(entry: ModelEntry, thinkingEnabled: boolean, timeoutSeconds: number): BaseChatModel {
    // A custom agent's model_settings make a different client of the same entry.
    const key = `${entry.name}\u0000${thinkingEnabled}\u0000${timeoutSeconds}\u0000${entry.temperature}\u0000${entry.max_tokens}`;
    let model = this.models.get(key);
    if (!model) {
      model = createChatModel(entry, { thinkingEnabled, timeoutSeconds });
      this.models.set(key, model);
    }
    return model;
  }
}

/** Returns the `createSubagent` function the `task` tool calls; the chain comes from lead-agent-chain.ts. */
function subagentFactory(setup: HarnessSetup, parentEntry: ModelEntry, models: ModelCache): CreateSubagent {
  return (spec) => {
    const entry = spec.model ? selectModel(setup.config, { modelName: spec.model }, setup.env).entry : parentEntry;
    const model =
      !spec.model && setup.options.chatModel
        ? setup.options.chatModel
        : models.get(entry, false, callTimeout(setup.config, entry));
    const middleware = buildSubagentChain({
      config: setup.config,
      home: setup.home,
      modelEntry: entry,
      sandbox: setup.sandbox,
      summaryModels: summaryModels(setup, model, entry, models),
      tokenCounter: createTokenCounter(entry.model),
      onWarning: setup.onWarning,
      logger: setup.logger.child("subagent"),
      maxTokens: spec.maxTokens,
    });
    const agent = createAgent({
      model,
      tools: spec.tools,
      stateSchema: ThreadStateSchema,
      middleware: composeChain(middleware, undefined, { afterModelInModelCall: true }),
      checkpointer: false,
    });
    return agent as unknown as SubagentGraph;
  };
}

/** Summarizer candidates: the configured summary model (thinking off), then the run's model. */
function summaryModels(
  setup: HarnessSetup,
  runModel: BaseChatModel,
  runEntry: ModelEntry,
  models: ModelCache,
): BaseChatModel[] {
  const name = setup.config.summarization.model_name;
  if (!name || name === runEntry.name) return [runModel];
  const entry = selectModel(setup.config, { modelName: name }, setup.env).entry;
  return [models.get(entry, false, callTimeout(setup.config, entry)), runModel];
}

/** The title model: `title.model_name`, else the run's model; none (fallback title) for the demo model. */
function titleModel(setup: HarnessSetup, runEntry: ModelEntry, models: ModelCache): BaseChatModel | undefined {
  const { config, env } = setup;
  const entry = config.title.model_name
    ? selectModel(config, { modelName: config.title.model_name }, env).entry
    : runEntry;
  // Tightly bounded: the title is written after the answer, and the run ends only when it is.
  const timeoutSeconds = Math.min(callTimeout(config, entry), config.llm_call.title_timeout_seconds);
  return entry.use === "demo" ? undefined : models.get(entry, false, timeoutSeconds);
}

/** Deadline of one call to `entry`: its `timeout:`, else `llm_call.timeout_seconds`. */
export function callTimeout(config: AppConfig, entry: ModelEntry): number {
  return entry.timeout ?? config.llm_call.timeout_seconds;
}

/** `provider` as one that offers no bash: its tools can be listed without choosing the sandbox's kind. */
function withoutBash(provider: SandboxProvider): SandboxProvider {
  return Object.create(provider, { bashAvailable: { value: false } }) as SandboxProvider;
}

/** The sandbox tools, `ask_clarification` and the web tools the config enables. */
function builtinTools(setup: HarnessSetup, vision: boolean): StructuredToolInterface[] {
  const { config, sandbox, env } = setup;
  return [
    ...createSandboxTools({
      provider: sandbox,
      vision,
      limits: {
        readFileMaxChars: config.sandbox.read_file_output_max_chars,
        lsMaxChars: config.sandbox.ls_output_max_chars,
        bashOutputMaxChars: config.sandbox.bash_output_max_chars,
        writeFileMaxBytes: config.sandbox.write_file_max_bytes,
        globMaxResults: config.sandbox.glob_max_results,
        grepMaxResults: config.sandbox.grep_max_results,
      },
    }),
    askClarificationTool,
    createTaskNoteTool(),
    ...createWebTools(config.web, { env }),
    // Only where compaction archives messages: the tools search and read that archive.
    ...(setup.threadArchive && config.summarization.enabled
      ? [createSearchHistoryTool(setup.threadArchive), createHistoryReadTool(setup.threadArchive)]
      : []),
  ];
}

function optionKey(run: AgentRunOptions): string {
  return JSON.stringify([
    run.model_name ?? null,
    run.thinking_enabled ?? null,
    run.is_plan_mode ?? null,
    run.subagent_enabled ?? null,
    run.max_concurrent_subagents ?? null,
    run.max_total_subagents ?? null,
    run.agent_name ?? null,
    run.user_id ?? null,
    run.disable_clarification ?? null,
    run.is_bootstrap ?? null,
  ]);
}

/** The custom agent a run names, for the run's user; `agent_not_found` saying how to make one. */
function customAgent(store: AgentStore, run: AgentRunOptions): AgentDefinition {
  const found = store.get(run.agent_name!, run.user_id ?? null);
  if (!found) {
    throw new HarnessError(
      "agent_not_found",
      `Agent "${run.agent_name}" does not exist. Create it first (deerflow agents create ${run.agent_name}, POST /api/agents, or the web app's Agents page), or leave agent_name out for the default agent.`,
    );
  }
  return found;
}

/** The model entry with a custom agent's temperature and max_tokens laid over it. */
function withModelSettings(entry: ModelEntry, settings: AgentDefinition["settings"]["model_settings"]): ModelEntry {
  if (!settings) return entry;
  return {
    ...entry,
    ...(settings.temperature === null || settings.temperature === undefined
      ? {}
      : { temperature: settings.temperature }),
    ...(settings.max_tokens === null || settings.max_tokens === undefined ? {} : { max_tokens: settings.max_tokens }),
  };
}

function assertUniqueToolNames(tools: readonly StructuredToolInterface[]): void {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) {
      throw new HarnessError(
        "tool_conflict",
        `Two tools are named "${tool.name}". Rename one of them: the model could not tell them apart.`,
      );
    }
    seen.add(tool.name);
  }
}
