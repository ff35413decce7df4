/**
 * Builds the lead agent: resolves the model, assembles tools, renders the system prompt, builds the
 * middleware chain and calls langchain's `createAgent` with the ThreadState and a checkpointer.
 *
 * Everything that can be wrong with the setup (unknown model, duplicate tool names, bad config) fails
 * here, before any model call.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { type AgentMiddleware, createAgent } from "langchain";
import type { AppConfig } from "../config/schema.js";
import { HarnessError } from "../errors.js";
import { createChatModel } from "../model/create-chat-model.js";
import { type ModelSelection, selectModel } from "../model/select-model.js";
import { loadSkills } from "../skills/load-skills.js";
import { ThreadStateSchema } from "../state/thread-state.js";
import { openCheckpointStore } from "../storage/checkpointer.js";
import { checkpointsPath, resolveHome } from "../storage/home.js";
import { buildLeadChain, type LeadRuntime } from "./lead-agent-chain.js";
import { promptDate, renderLeadPrompt } from "./prompt.js";
import path from "node:path";

/** Runtime options of a run, named as in DeerFlow's `configurable`, plus what only code can pass. */
export interface LeadAgentOptions {
  model_name?: string;
  thinking_enabled?: boolean;
  is_plan_mode?: boolean;
  subagent_enabled?: boolean;
  max_concurrent_subagents?: number;
  agent_name?: string;
  /** Extra langchain tools, added after the built-in ones. Names must not collide. */
  tools?: readonly StructuredToolInterface[];
  /** Extra middlewares, inserted before `clarification`. */
  middleware?: readonly AgentMiddleware[];
  /** The home directory (default: `DEER_FLOW_HOME` or `./.deer-flow`). */
  home?: string;
  /** A checkpointer to use instead of `{home}/checkpoints.sqlite`; `false` for none. */
  checkpointer?: BaseCheckpointSaver | false;
  env?: Record<string, string | undefined>;
  /** Receives warnings (thinking downgraded, skipped skills, ...). Defaults to `console.warn`. */
  onWarning?: (message: string) => void;
}

/** What was decided while building the agent, for the CLI to report. */
export interface LeadAgentInfo {
  home: string;
  model: ModelSelection;
  toolNames: string[];
  middlewareNames: string[];
  runtime: LeadRuntime;
  systemPrompt: string;
}

/**
 * Creates the lead agent: a compiled LangGraph graph (`invoke`, `stream`, `getState`, ...) with
 * DeerFlow's middleware chain, plus `deerflow` (what was decided), `listThreadIds()` and `close()`
 * (release the sandbox, flush memory, close the database).
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
  const onWarning = options.onWarning ?? ((message: string) => console.warn(message));
  const home = resolveHome({ home: options.home, env });
  const selection = selectModel(config, { modelName: options.model_name, thinkingEnabled: options.thinking_enabled }, env);
  selection.warnings.forEach(onWarning);
  const model = createChatModel(selection.entry, { thinkingEnabled: selection.thinkingEnabled });

  const runtime: LeadRuntime = {
    isPlanMode: options.is_plan_mode ?? false,
    subagentEnabled: options.subagent_enabled ?? config.subagents.enabled,
    maxConcurrentSubagents: clamp(options.max_concurrent_subagents ?? config.subagents.max_concurrent, 2, 4),
    agentName: options.agent_name,
  };
  if (runtime.agentName !== undefined && !/^[A-Za-z0-9-]+$/.test(runtime.agentName)) {
    throw new HarnessError("config_invalid", `Agent name "${runtime.agentName}" is not valid: use letters, digits and "-" only.`);
  }

  const tools = [...(options.tools ?? [])];
  assertUniqueToolNames(tools);
  const middleware = buildLeadChain({ config, runtime, home, custom: options.middleware ?? [], onWarning });

  const skills = loadSkills(path.resolve(config.skills.path), config.skills.container_path, onWarning);
  const systemPrompt = renderLeadPrompt({
    agentName: runtime.agentName,
    skills,
    skillsContainerPath: config.skills.container_path,
    bashAvailable: tools.some((tool) => tool.name === "bash"),
    date: promptDate(),
  });

  const store = options.checkpointer === undefined ? openCheckpointStore(checkpointsPath(home)) : null;
  const checkpointer = options.checkpointer === false ? undefined : (options.checkpointer ?? store!.saver);

  const graph = createAgent({
    model,
    tools,
    systemPrompt,
    stateSchema: ThreadStateSchema,
    middleware,
    checkpointer,
  });

  const info: LeadAgentInfo = {
    home,
    model: selection,
    toolNames: tools.map((tool) => tool.name),
    middlewareNames: middleware.map((entry) => entry.name),
    runtime,
    systemPrompt,
  };
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    store?.close();
  };
  /** Saved thread ids, most recently updated first (empty without the built-in SQLite store). */
  const listThreadIds = () => store?.listThreadIds() ?? [];
  return Object.assign(graph, { deerflow: info, close, listThreadIds });
}

/** The agent `createLeadAgent` returns. */
export type LeadAgent = Awaited<ReturnType<typeof createLeadAgent>>;

function assertUniqueToolNames(tools: readonly StructuredToolInterface[]): void {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) {
      throw new HarnessError("tool_conflict", `Two tools are named "${tool.name}". Rename one of them: the model could not tell them apart.`);
    }
    seen.add(tool.name);
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.trunc(value)));
}
