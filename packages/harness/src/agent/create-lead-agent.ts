/**
 * Builds the lead agent: resolves the model, creates the run's services (sandbox, memory, history
 * archive, checkpointer), assembles tools, renders the system prompt, builds the middleware chain and
 * calls langchain's `createAgent` with the ThreadState.
 *
 * Everything that can be wrong with the setup (unknown model, duplicate tool names, bad config) fails
 * here, before any model call.
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
import { createHistoryArchive, type HistoryArchive, type HistoryEntry } from "../history/history-archive.js";
import type { McpService } from "../mcp/mcp-service.js";
import { openMcpService } from "../mcp/open-mcp-service.js";
import { TOOL_SEARCH_TOOL_NAME } from "../mcp/tool-search.js";
import { createChatModel } from "../model/create-chat-model.js";
import { type ModelSelection, selectModel } from "../model/select-model.js";
import { countTokens, createTokenCounter } from "../model/tokens.js";
import { createSandboxProvider } from "../sandbox/provider.js";
import type { SandboxKind } from "../sandbox/sandbox.js";
import { prepareSkills } from "../skills/prepare-skills.js";
import { ThreadStateSchema } from "../state/thread-state.js";
import { openCheckpointStore } from "../storage/checkpointer.js";
import { databaseFile, resolveHome } from "../storage/home.js";
import { renderSubagentPromptSection } from "../subagents/prompt-section.js";
import { clampMaxConcurrent, clampMaxTotal } from "../subagents/concurrency.js";
import { createSubagentRegistry } from "../subagents/registry.js";
import { askClarificationTool } from "../tools/ask-clarification.js";
import { createSandboxTools } from "../tools/sandbox-tools.js";
import { loadConfigTools } from "../tools/load-config-tools.js";
import { createTaskTool } from "../tools/task.js";
import { createWebTools } from "../tools/web/create-web-tools.js";
import { renderWebPromptSection } from "../tools/web/prompt-section.js";
import { buildLeadChain, type LeadRuntime } from "./lead-agent-chain.js";
import { createLeadMemory } from "./lead-memory.js";
import { promptDate, renderLeadPrompt } from "./prompt.js";
import { subagentFactory } from "./subagent-factory.js";

/** Graph steps allowed per run unless the invoke config says otherwise. */
export const DEFAULT_RECURSION_LIMIT = 1000;

/** Runtime options of a run, named as in DeerFlow's `configurable`, plus what only code can pass. */
export interface LeadAgentOptions {
  model_name?: string;
  thinking_enabled?: boolean;
  is_plan_mode?: boolean;
  subagent_enabled?: boolean;
  max_concurrent_subagents?: number;
  /** Cap on `task` calls per run; default `subagents.max_total_per_run`, clamped to [1, 50]. */
  max_total_subagents?: number;
  agent_name?: string;
  /**
   * A chat model instance to use instead of building one from the selected entry (tests, benchmarks,
   * providers we have no `use:` for). The entry still supplies its settings (vision, input window).
   */
  chatModel?: BaseChatModel;
  /** Extra langchain tools, added after the built-in and config (`tools:`) ones. Names must not collide. */
  tools?: readonly StructuredToolInterface[];
  /** Extra middlewares, inserted before `clarification`. */
  middleware?: readonly AgentMiddleware[];
  /** The home directory (default: `DEER_FLOW_HOME` or `./.deer-flow`). */
  home?: string;
  /** A checkpointer to use instead of `{home}/checkpoints.sqlite`; `false` for none. */
  checkpointer?: BaseCheckpointSaver | false;
  env?: Record<string, string | undefined>;
  /** Receives warnings (thinking downgraded, skipped skills, ...). Defaults to the logger's `warn`. */
  onWarning?: (message: string) => void;
  /**
   * A long-lived MCP service shared across agents (the caller closes it). Absent: the agent opens one
   * from `mcp_servers` / `extensions_config.json` and closes it in `close()`. `false`: no MCP tools.
   */
  mcp?: McpService | false;
  /** The harness log. Default: stderr at the config's `log_level`. */
  logger?: Logger;
}

/** What was decided while building the agent, for the CLI to report. */
export interface LeadAgentInfo {
  home: string;
  /** The SQLite file of checkpoints, history archive and thread leases (null with a checkpointer from code). */
  databaseFile: string | null;
  model: ModelSelection;
  sandbox: { kind: SandboxKind; reason: string; bashAvailable: boolean };
  toolNames: string[];
  middlewareNames: string[];
  runtime: LeadRuntime;
  systemPrompt: string;
}

/**
 * Creates the lead agent: langchain's agent (`invoke`, `stream`, and `graph` for `getState`) with
 * DeerFlow's middleware chain, plus `deerflow` (what was decided), `listThreadIds()`, `history(threadId)`
 * and `close()` (release sandboxes, flush memory, close the database).
 *
 * @example
 * const config = loadConfig();
 * const agent = await createLeadAgent(config, { is_plan_mode: true });
 * const result = await agent.invoke({ messages: [{ role: "user", content: "Write a haiku" }] },
 *   { configurable: { thread_id: "t1" } });
 * await agent.close();
 */
export async function createLeadAgent(config: AppConfig, options: LeadAgentOptions = {}) {
  const env = options.env ?? process.env;
  const logger = options.logger ?? createLogger({ level: config.log_level });
  const onWarning = options.onWarning ?? ((message: string) => logger.warn(message));
  const home = resolveHome({ home: options.home, env });
  const selection = selectModel(config, { modelName: options.model_name, thinkingEnabled: options.thinking_enabled }, env);
  selection.warnings.forEach(onWarning);
  const model = options.chatModel ?? createChatModel(selection.entry, { thinkingEnabled: selection.thinkingEnabled, timeoutSeconds: callTimeout(config, selection.entry) });

  const runtime: LeadRuntime = {
    isPlanMode: options.is_plan_mode ?? false,
    subagentEnabled: options.subagent_enabled ?? config.subagents.enabled,
    maxConcurrentSubagents: clampMaxConcurrent(options.max_concurrent_subagents ?? config.subagents.max_concurrent),
    maxTotalSubagents: clampMaxTotal(options.max_total_subagents ?? config.subagents.max_total_per_run),
    agentName: options.agent_name,
  };
  if (runtime.agentName !== undefined && !/^[A-Za-z0-9-]+$/.test(runtime.agentName)) {
    throw new HarnessError("config_invalid", `Agent name "${runtime.agentName}" is not valid: use letters, digits and "-" only.`);
  }

  const ownMcp = options.mcp === undefined ? openMcpService(config, { env, onWarning }) : undefined;
  const mcp = options.mcp || ownMcp;

  // The sandbox shows a projection of the enabled skills (bundled + the user's), not skills.path itself.
  const skills = prepareSkills({ skillsPath: path.resolve(config.skills.path), containerPath: config.skills.container_path, home, env, onWarning });
  const sandbox = createSandboxProvider({
    use: config.sandbox.use,
    home,
    skillsPath: skills.viewDir,
    skillsContainerPath: config.skills.container_path,
    allowHostBash: config.sandbox.allow_host_bash,
    bashTimeoutSeconds: config.sandbox.bash_command_timeout,
    bashOutputMaxChars: config.sandbox.bash_output_max_chars,
  });
  const memory = createLeadMemory(config, { home, agentName: runtime.agentName, runModel: selection, chatModel: options.chatModel, env, onWarning, logger });

  const tools: StructuredToolInterface[] = [
    ...createSandboxTools({
      provider: sandbox,
      vision: selection.entry.supports_vision,
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
    ...createWebTools(config.web, { env }),
  ];
  const registry = createSubagentRegistry({
    bashAllowed: sandbox.bashAvailable,
    maxTurns: config.subagents.max_turns ?? undefined,
    timeoutSeconds: config.subagents.timeout_seconds,
    overrides: config.subagents.agents,
    customAgents: config.subagents.custom_agents,
  });
  if (runtime.subagentEnabled) {
    const createSubagent = subagentFactory({ config, home, sandbox, parentEntry: selection.entry, parentChatModel: options.chatModel, env, onWarning });
    tools.push(createTaskTool({ registry, createSubagent, parentTools: () => tools, defaultTimeoutSeconds: config.subagents.timeout_seconds }));
  }
  tools.push(...(await loadConfigTools(config.tools, config.source ? path.dirname(config.source) : process.cwd(), onWarning)));
  tools.push(...(options.tools ?? []));
  // MCP tools come last and are renamed on a clash, so they never break the built-in names.
  const mcpTools = mcp ? await mcp.tools({ reservedNames: [...tools.map((tool) => tool.name), TOOL_SEARCH_TOOL_NAME] }) : [];
  tools.push(...mcpTools);
  const deferredTools = config.tool_search.enabled && mcpTools.length > config.tool_search.threshold ? mcpTools : [];
  try {
    assertUniqueToolNames(tools);
  } catch (error) {
    await ownMcp?.close();
    throw error;
  }

  const systemPrompt = renderLeadPrompt({
    agentName: runtime.agentName,
    skills: skills.enabled,
    skillsContainerPath: config.skills.container_path,
    subagentSection: runtime.subagentEnabled ? renderSubagentPromptSection({ maxConcurrent: runtime.maxConcurrentSubagents, maxTotal: runtime.maxTotalSubagents, types: registry.list() }) : undefined,
    bashAvailable: tools.some((tool) => tool.name === "bash"),
    webSection: renderWebPromptSection(tools.map((tool) => tool.name)),
    memoryBlock: memory?.promptBlock(),
    date: promptDate(),
  });

  if (config.database.backend === "postgres") {
    onWarning(`database.backend "postgres" is not supported by DeerFlow.ts yet; threads are kept in SQLite (${databaseFile(home, config.database)}).`);
  } else if (config.database.postgres_url) {
    onWarning("database.postgres_url is ignored: database.backend is sqlite.");
  }
  const store = options.checkpointer === undefined ? openCheckpointStore(databaseFile(home, config.database)) : null;
  const archive: HistoryArchive | undefined = store ? createHistoryArchive(store.file) : undefined;
  const checkpointer = options.checkpointer === false ? undefined : (options.checkpointer ?? store!.saver);
  const modelId = selection.entry.model;
  const middleware = buildLeadChain({
    config,
    runtime,
    home,
    modelEntry: selection.entry,
    sandbox,
    summaryModels: summaryModels(config, model, selection, env),
    titleModel: titleModel(config, selection, env),
    tokenCounter: createTokenCounter(modelId),
    overheadTokens: countTokens([], { model: modelId, systemPrompt, tools: tools.filter((tool) => !deferredTools.includes(tool)) }),
    archive,
    memory,
    custom: options.middleware ?? [],
    deferredTools,
    skills: { skills: skills.enabled, disabled: skills.disabled },
    onWarning,
    logger,
  });

  // Every middleware hook is a graph step (about nine per model-and-tools round), so langchain's default
  // limit of 25 would stop a run after two rounds; DeerFlow's ceiling of 1000 allows about a hundred.
  const agent = createAgent({ model, tools, systemPrompt, stateSchema: ThreadStateSchema, middleware, checkpointer }).withConfig({
    recursionLimit: DEFAULT_RECURSION_LIMIT,
  });

  const info: LeadAgentInfo = {
    home,
    databaseFile: store?.file ?? null,
    model: selection,
    sandbox: { kind: sandbox.kind, reason: sandbox.reason, bashAvailable: sandbox.bashAvailable },
    toolNames: [...tools.map((tool) => tool.name), ...(deferredTools.length > 0 ? [TOOL_SEARCH_TOOL_NAME] : [])],
    middlewareNames: middleware.map((entry) => entry.name),
    runtime,
    systemPrompt,
  };
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    try {
      await memory?.close();
      await sandbox.shutdown();
      await ownMcp?.close();
    } finally {
      archive?.close();
      store?.close();
    }
  };
  /** Saved thread ids, most recently updated first (empty without the built-in SQLite store). */
  const listThreadIds = () => store?.listThreadIds() ?? [];
  /** A thread's whole conversation: the archived (compacted) messages with markers, then the live ones. */
  const history = async (threadId: string): Promise<HistoryEntry[]> => {
    const state = await agent.graph.getState({ configurable: { thread_id: threadId } });
    const live = ((state.values as { messages?: BaseMessage[] }).messages ?? []) as BaseMessage[];
    return mergeHistory(archive?.read(threadId) ?? [], live);
  };
  return Object.assign(agent, { deerflow: info, close, listThreadIds, history });
}

/** The agent `createLeadAgent` returns. */
export type LeadAgent = Awaited<ReturnType<typeof createLeadAgent>>;

/** Summarizer candidates: the configured summary model (thinking off), then the run's model. */
function summaryModels(config: AppConfig, runModel: BaseChatModel, selection: ModelSelection, env: Record<string, string | undefined>): BaseChatModel[] {
  const name = config.summarization.model_name;
  if (!name || name === selection.entry.name) return [runModel];
  const entry = selectModel(config, { modelName: name }, env).entry;
  return [createChatModel(entry, { thinkingEnabled: false, timeoutSeconds: callTimeout(config, entry) }), runModel];
}

/** The title model: `title.model_name`, else the run's model; none (fallback title) for the demo model. */
function titleModel(config: AppConfig, selection: ModelSelection, env: Record<string, string | undefined>): BaseChatModel | undefined {
  const entry = config.title.model_name ? selectModel(config, { modelName: config.title.model_name }, env).entry : selection.entry;
  // Tightly bounded: the title is written after the answer, and the run ends only when it is.
  const timeoutSeconds = Math.min(callTimeout(config, entry), config.llm_call.title_timeout_seconds);
  return entry.use === "demo" ? undefined : createChatModel(entry, { thinkingEnabled: false, timeoutSeconds });
}

/** Deadline of one call to `entry`: its `timeout:`, else `llm_call.timeout_seconds`. */
export function callTimeout(config: AppConfig, entry: ModelEntry): number {
  return entry.timeout ?? config.llm_call.timeout_seconds;
}

function assertUniqueToolNames(tools: readonly StructuredToolInterface[]): void {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) {
      throw new HarnessError("tool_conflict", `Two tools are named "${tool.name}". Rename one of them: the model could not tell them apart.`);
    }
    seen.add(tool.name);
  }
}
