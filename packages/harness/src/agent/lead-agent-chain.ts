/**
 * The lead agent's middleware chain, in order, in one place.
 *
 * Order is part of the contract: `beforeAgent`/`beforeModel` hooks run top to bottom, `afterModel`/
 * `afterAgent` bottom to top, and `wrapModelCall`/`wrapToolCall` nest with the first entry outermost.
 * Each entry says why it sits where it does. This is the only place that maps config to middleware
 * options; middlewares never read config themselves.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { AgentMiddleware } from "langchain";
import type { AppConfig, ModelEntry } from "../config/schema.js";
import type { AnyHistoryArchive } from "../history/history-archive.js";
import type { Logger } from "../logger.js";
import type { MemoryService } from "../memory/memory-service.js";
import { deferredToolsMiddleware } from "../mcp/deferred-tools.js";
import { backgroundTasksMiddleware } from "../middleware/background-tasks.js";
import { clarificationMiddleware } from "../middleware/clarification.js";
import { contextGuardMiddleware } from "../middleware/context-guard/index.js";
import { conversationRefsMiddleware } from "../middleware/conversation-refs.js";
import { modelRetryMiddleware } from "../middleware/model-retry.js";
import { modelCircuitMiddleware } from "../middleware/model-circuit.js";
import { emptyAnswerMiddleware } from "../middleware/empty-answer.js";
import { finishReasonMiddleware } from "../middleware/finish-reason.js";
import { type ModelCircuits, processModelCircuits } from "../model/circuit-breaker.js";
import { danglingToolCallMiddleware } from "../middleware/dangling-tool-call/index.js";
import { durableContextMiddleware } from "../middleware/durable-context/index.js";
import { inputSanitizationMiddleware } from "../middleware/input-sanitization.js";
import { readBeforeWriteMiddleware } from "../middleware/read-before-write.js";
import { sandboxMiddleware } from "../middleware/sandbox.js";
import { loopDetectionMiddleware } from "../middleware/loop-detection.js";
import { type SkillActivationOptions, skillActivationMiddleware } from "../middleware/skill-activation.js";
import { subagentLimitMiddleware } from "../middleware/subagent-limit.js";
import { type BeforeSummarizationHook, summarizationMiddleware } from "../middleware/summarization/index.js";
import { memoryFlushHook } from "../middleware/summarization/memory-flush-hook.js";
import { threadDataMiddleware } from "../middleware/thread-data.js";
import { titleMiddleware } from "../middleware/title.js";
import { tokenUsageMiddleware } from "../middleware/token-usage.js";
import { todoListMiddleware } from "../middleware/todo-list.js";
import { toolErrorsMiddleware } from "../middleware/tool-errors.js";
import { toolProgressMiddleware } from "../middleware/tool-progress.js";
import { toolResultSanitizationMiddleware } from "../middleware/tool-result-sanitization.js";
import { toolReceiptsMiddleware } from "../middleware/tool-receipts.js";
import { toolCallRepairMiddleware } from "../middleware/tool-call-repair.js";
import { toolPolicyMiddleware } from "../middleware/tool-policy.js";
import { uploadsMiddleware } from "../middleware/uploads.js";
import { viewImageMiddleware } from "../middleware/view-image.js";
import { modelEndpoint, modelLabel } from "../model/create-chat-model.js";
import type { TokenCounter } from "../model/tokens.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import type { BackgroundTasks } from "../subagents/background.js";

/** Runtime switches of one run (DeerFlow's `configurable`), after defaults and clamping. */
export interface LeadRuntime {
  isPlanMode: boolean;
  subagentEnabled: boolean;
  maxConcurrentSubagents: number;
  /** Cap on `task` calls per run (`subagents.max_total_per_run`), clamped to [1, 50]. */
  maxTotalSubagents: number;
  agentName?: string;
  /** `disable_clarification`: nobody can answer, so the model is not offered ask_clarification. */
  clarificationDisabled?: boolean;
}

/** What the chain is built from: config, the run's switches, and the services created for the run. */
export interface LeadChainInput {
  config: AppConfig;
  runtime: LeadRuntime;
  home: string;
  /** The run's model entry (vision support, input window). */
  modelEntry: ModelEntry;
  sandbox: SandboxProvider;
  /** Summarizer candidates in order: the configured summary model, then the run's model. */
  summaryModels: BaseChatModel[];
  /** The title model, or undefined to use the fallback title. */
  titleModel?: BaseChatModel;
  tokenCounter: TokenCounter;
  /** Tokens of the system prompt and tool schemas; with `max_input_tokens`, they cap a summarization trigger's budget. */
  overheadTokens: number;
  archive?: AnyHistoryArchive;
  /** Long-term memory, or null when `memory.enabled` is false. */
  memory: MemoryService | null;
  /** Whether that memory learns (its model can extract facts): compacted messages are then queued for it first. */
  memoryLearns?: boolean;
  /** `before_summarization` hooks given in code; they run after the built-in memory flush. */
  beforeSummarization?: readonly BeforeSummarizationHook[];
  /** Middlewares given in code; they go right before clarification. */
  custom: readonly AgentMiddleware[];
  /** MCP tools withheld behind `tool_search` (empty: every tool is bound as usual). */
  deferredTools?: readonly StructuredToolInterface[];
  /** The store of background subagents (`task(run_in_background)`), present when subagents are on. */
  backgroundTasks?: BackgroundTasks;
  /** `read_conversation` is bound: user messages' conversation references are shown to the model. */
  readConversation?: boolean;
  /** Skills `/name` can activate (enabled) and the disabled ones; absent: no slash activation. */
  skills?: SkillActivationOptions;
  onWarning: (message: string) => void;
  /** The harness log (`log_level`); middlewares log their key actions to it. */
  logger?: Logger;
  /** The model circuit breakers; default the process-wide ones. */
  circuits?: ModelCircuits;
}

/** Builds the ordered middleware list of the lead agent. */
export function buildLeadChain(input: LeadChainInput): AgentMiddleware[] {
  const { config, runtime } = input;
  const chain: (AgentMiddleware | false)[] = [
    // 1. Thread directories first: every later hook and tool resolves paths through thread_data.
    threadDataMiddleware({ home: input.home }),
    // 2. Uploads block on the new user message before any model sees it.
    uploadsMiddleware({ home: input.home, logger: input.logger?.child("uploads") }),
    // 3. Sandbox lifecycle; acquired lazily by the first tool call, released at shutdown.
    sandboxMiddleware({ provider: input.sandbox, logger: input.logger?.child("sandbox") }),
    // 3a0. Outermost result wrapper: the receipt is stamped on the result the model will see, errors included.
    toolReceiptsMiddleware(),
    // 3a. Outside tool-errors, so a tool's exception reaches these as the error result they count and neutralize.
    config.tool_progress.enabled && toolProgress(config, input.onWarning, input.logger),
    toolResultSanitizationMiddleware({ logger: input.logger?.child("tool-result-sanitization") }),
    // 3b. Below the sandbox and the result guards: a tool's exception becomes an error result, not the end of the run.
    toolErrorsMiddleware({ logger: input.logger?.child("tool-errors") }),
    // 3c. Inside tool-errors (which lets its approval interrupt through), outside every other tool wrapper: a refused call reaches nothing.
    Object.keys(config.tool_policies).length > 0 &&
      toolPolicyMiddleware({ policies: config.tool_policies, logger: input.logger?.child("tool-policy") }),
    // 3d. Inside tool-policy, outside the other tool wrappers: a write it refuses never reaches them or the tool.
    config.sandbox.read_before_write &&
      readBeforeWriteMiddleware({ provider: input.sandbox, logger: input.logger?.child("read-before-write") }),
    // 4. Outermost model wrapper: repairs unpaired tool calls in the request, so no provider sees a dangling call.
    danglingToolCallMiddleware({ logger: input.logger?.child("dangling-tool-call") }),
    // 4a. Before any wrapper adds harness messages (skills, durable context, images), so only the user's text is neutralized.
    inputSanitizationMiddleware({ logger: input.logger?.child("input-sanitization") }),
    // 4b. Turns tool calls with invalid JSON arguments into error results instead of ending the run.
    toolCallRepairMiddleware({ logger: input.logger?.child("tool-call-repair") }),
    // 4b2-4b4. Outside model-retry: the breaker counts calls that used up their retries; the answer guards' second calls are retried like the first.
    ...answerGuards(config, input),
    // 4c. Retries 429s, 5xx, timeouts and dropped connections (the clients do not), announcing each wait as `llm_retry`.
    modelRetryMiddleware({ ...retryOptions(config, input.modelEntry), logger: input.logger?.child("model-retry") }),
    // 4d. Slash skill activation edits the request only, inside the dangling-call repair and outside durable context (DeerFlow's order), so the durable block still leads the messages.
    input.skills !== undefined &&
      skillActivationMiddleware({ ...input.skills, logger: input.logger?.child("skill-activation") }),
    // 4e. Request-only like 4d and outside durable context, so the durable block still leads the messages.
    input.readConversation === true && conversationRefsMiddleware(),
    // 5. Captures delegations and skills before summarization can drop their messages; projects them into each request.
    durableContext(config, input.onWarning, input.logger),
    // 6. Compacts history into summary_text after durable context has captured what it needs; memory sees what it removes first.
    config.summarization.enabled &&
      summarization(config, input, {
        overheadTokens: input.overheadTokens,
        archive: input.archive,
        agentName: runtime.agentName,
        beforeSummarization: [
          ...(input.memory && input.memoryLearns
            ? [
                memoryFlushHook(input.memory.queue, {
                  logger: input.logger?.child("summarization"),
                  learnedThrough: input.memory.learnedThrough,
                }),
              ]
            : []),
          ...(input.beforeSummarization ?? []),
        ],
      }),
    // 7. Plan mode: write_todos and its rules.
    runtime.isPlanMode && todoListMiddleware({ logger: input.logger?.child("todo-list") }),
    // 8. Title after the first exchange (afterAgent).
    config.title.enabled &&
      titleMiddleware({
        model: input.titleModel,
        maxWords: config.title.max_words,
        maxChars: config.title.max_chars,
        promptTemplate: config.title.prompt_template ?? undefined,
        onWarning: input.onWarning,
        logger: input.logger?.child("title"),
      }),
    // 9. Queues the finished conversation for fact extraction (afterAgent, sees the final answer).
    input.memory?.middleware() ?? false,
    // 10. Vision models only: shows the images view_image loaded, once.
    input.modelEntry.supports_vision &&
      viewImageMiddleware({ home: input.home, logger: input.logger?.child("view-image") }),
    // 11. Drops task calls past the per-response limit before any tool runs.
    runtime.subagentEnabled &&
      subagentLimitMiddleware({
        maxConcurrent: runtime.maxConcurrentSubagents,
        maxTotal: runtime.maxTotalSubagents,
        onWarning: input.onWarning,
        logger: input.logger?.child("subagent-limit"),
      }),
    // 11a. Cancels the run's unfinished background subagents in afterAgent, after memory and title saw the answer.
    runtime.subagentEnabled &&
      input.backgroundTasks !== undefined &&
      backgroundTasksMiddleware({
        tasks: input.backgroundTasks,
        onWarning: input.onWarning,
        logger: input.logger?.child("background-tasks"),
      }),
    // 11b. Many MCP tools: offers tool_search, hides deferred tools until promoted and refuses calls to them before that.
    (input.deferredTools?.length ?? 0) > 0 &&
      deferredToolsMiddleware({ deferred: input.deferredTools!, logger: input.logger?.child("deferred-tools") }),
    // 11c. Repeated identical tool calls: afterModel runs bottom-up, so it sees the response before subagent-limit drops calls.
    config.loop_detection.enabled && loopDetection(config, input.onWarning, input.logger),
    // 11d. Token accounting (always) and the optional budget: the first afterModel, so every response is counted before any jump.
    tokenUsageMiddleware({
      maxTokens: config.token_budget.enabled ? config.token_budget.max_tokens : undefined,
      onWarning: input.onWarning,
      logger: input.logger?.child("token-usage"),
    }),
    // 11e. Innermost model wrapper: bounds tool results in the final request; on a context-length error compacts harder, retries once.
    contextGuardMiddleware({
      perResultChars: config.llm_call.tool_result_max_chars,
      perRequestChars: config.llm_call.tool_results_max_chars,
      maxInputTokens: input.modelEntry.max_input_tokens,
      modelLabel: modelLabel(input.modelEntry),
      onWarning: input.onWarning,
      logger: input.logger?.child("context-guard"),
    }),
    // Code-supplied middlewares sit inside the built-in chain but outside clarification.
    ...input.custom,
    // 12. Innermost tool wrapper: intercepts ask_clarification and ends the run on the question.
    clarificationMiddleware({
      disabled: runtime.clarificationDisabled,
      logger: input.logger?.child("clarification"),
    }),
  ];
  return chain.filter((entry): entry is AgentMiddleware => entry !== false);
}

/** Retry settings of a model: the entry's `max_retries` over `llm_call`'s. Also used by subagents. */
export function retryOptions(config: AppConfig, entry: ModelEntry, onWarning?: (message: string) => void) {
  return {
    maxRetries: entry.max_retries ?? config.llm_call.max_retries,
    baseDelayMs: config.llm_call.retry_base_delay_ms,
    capDelayMs: config.llm_call.retry_cap_delay_ms,
    maxRetryAfterMs: config.llm_call.retry_after_max_seconds * 1000,
    modelName: entry.name,
    onWarning,
  };
}

/**
 * The circuit breaker (outermost: a paused endpoint fails before anything is sent), then the empty-answer
 * retry around the finish-reason guard (a cut or filtered answer gets its note first, so only a truly
 * empty one is retried).
 */
function answerGuards(
  config: AppConfig,
  input: { modelEntry: ModelEntry; circuits?: ModelCircuits; onWarning: (message: string) => void; logger?: Logger },
): AgentMiddleware[] {
  const entry = input.modelEntry;
  const modelName = entry.name;
  return [
    modelCircuitMiddleware({
      circuits: input.circuits ?? processModelCircuits,
      key: `${entry.use}|${entry.model}|${modelEndpoint(entry) ?? ""}`,
      modelName,
      failureThreshold: config.llm_call.circuit_failure_threshold,
      cooldownMs: config.llm_call.circuit_cooldown_seconds * 1000,
      logger: input.logger?.child("model-circuit"),
    }),
    emptyAnswerMiddleware({ modelName, onWarning: input.onWarning, logger: input.logger?.child("empty-answer") }),
    finishReasonMiddleware({
      modelName,
      maxContinuations: config.llm_call.max_length_continuations,
      onWarning: input.onWarning,
      logger: input.logger?.child("finish-reason"),
    }),
  ];
}

/** `fraction` triggers need the model's window; without `max_input_tokens` they are skipped (documented default). */
export function knownTriggers(triggers: AppConfig["summarization"]["trigger"], maxInputTokens: number | undefined) {
  return maxInputTokens ? triggers : triggers.filter((trigger) => trigger.type !== "fraction");
}

/** What a subagent's chain is built from: the same setup values as the lead's, for the subagent's model. */
export interface SubagentChainInput {
  config: AppConfig;
  home: string;
  /** The subagent's model entry (input window). */
  modelEntry: ModelEntry;
  sandbox: SandboxProvider;
  /** Summarizer candidates in order: `summarization.model_name` when set, then the subagent's model. */
  summaryModels: BaseChatModel[];
  tokenCounter: TokenCounter;
  onWarning: (message: string) => void;
  /** The harness log (`log_level`). */
  logger?: Logger;
  /** The kind's token budget (`subagents.token_budget`, or its own); undefined for none. */
  maxTokens?: number;
  /** The model circuit breakers; default the process-wide ones. */
  circuits?: ModelCircuits;
}

/**
 * Builds the ordered middleware list of a subagent (a `task` call in an isolated context). It keeps the
 * sandbox and context machinery of the lead chain and nothing that talks to the user or persists across
 * threads (uploads, title, memory, clarification). Built here, beside the lead chain, so each config
 * section is mapped to middleware options in one file.
 */
export function buildSubagentChain(input: SubagentChainInput): AgentMiddleware[] {
  const { config } = input;
  const chain: (AgentMiddleware | false)[] = [
    // 1. Thread directories: the subagent shares the parent's thread files.
    threadDataMiddleware({ home: input.home }),
    // 2. The parent's sandbox, acquired lazily.
    sandboxMiddleware({ provider: input.sandbox, logger: input.logger?.child("sandbox") }),
    // 2a0. Receipts as for the lead, and shown after each result: the subagent's report cites them.
    toolReceiptsMiddleware({ showInRequest: true }),
    // 2a. Outside tool-errors, as for the lead: exceptions reach them as error results.
    config.tool_progress.enabled && toolProgress(config, input.onWarning, input.logger),
    toolResultSanitizationMiddleware({ logger: input.logger?.child("tool-result-sanitization") }),
    // 2b. A tool that throws becomes an error result, not a dead subagent.
    toolErrorsMiddleware({ logger: input.logger?.child("tool-errors") }),
    // 2c. The lead's tool policies, before any tool wrapper; nobody can approve inside a subagent, so approval refuses.
    Object.keys(config.tool_policies).length > 0 &&
      toolPolicyMiddleware({
        policies: config.tool_policies,
        canAsk: false,
        logger: input.logger?.child("tool-policy"),
      }),
    // 2d. The subagent's own reads count: it shares the thread's files but not the lead's messages.
    config.sandbox.read_before_write &&
      readBeforeWriteMiddleware({ provider: input.sandbox, logger: input.logger?.child("read-before-write") }),
    // 3. Outermost model wrapper: no provider sees a dangling tool call.
    danglingToolCallMiddleware({ logger: input.logger?.child("dangling-tool-call") }),
    // 4. Invalid tool-call JSON becomes an error result.
    toolCallRepairMiddleware({ logger: input.logger?.child("tool-call-repair") }),
    // 4a. The breaker and the answer guards, outside model-retry as for the lead.
    ...answerGuards(config, input),
    // 4b. Retries 429s, 5xx, timeouts and dropped connections, as for the lead.
    modelRetryMiddleware({ ...retryOptions(config, input.modelEntry), logger: input.logger?.child("model-retry") }),
    // 5. Captures delegations and skills before summarization can drop them.
    durableContext(config, input.onWarning, input.logger),
    // 6. Compaction, with the same summarizer choice as the lead (summarization.model_name first).
    config.summarization.enabled && summarization(config, input, {}),
    // 7. Last, so its afterModel runs first: a subagent stuck repeating one call stops long before max_turns.
    config.loop_detection.enabled && loopDetection(config, input.onWarning, input.logger),
    // 8. The token budget, as for the lead: the first afterModel, so every response counts before any stop.
    input.maxTokens !== undefined &&
      tokenUsageMiddleware({
        maxTokens: input.maxTokens,
        budgetKey: "subagents.token_budget.max_tokens",
        onWarning: input.onWarning,
        logger: input.logger?.child("token-usage"),
      }),
  ];
  return chain.filter((entry): entry is AgentMiddleware => entry !== false);
}

/** `summarization:` as middleware options, for the lead (with overhead and archive) and for subagents. */
function summarization(
  config: AppConfig,
  input: {
    summaryModels: BaseChatModel[];
    modelEntry: ModelEntry;
    tokenCounter: TokenCounter;
    onWarning: (message: string) => void;
    logger?: Logger;
  },
  extra: {
    overheadTokens?: number;
    archive?: AnyHistoryArchive;
    agentName?: string;
    beforeSummarization?: BeforeSummarizationHook[];
  },
): AgentMiddleware {
  const settings = config.summarization;
  return summarizationMiddleware({
    models: input.summaryModels,
    trigger: knownTriggers(settings.trigger, input.modelEntry.max_input_tokens),
    keep: settings.keep,
    trimTokensToSummarize: settings.trim_tokens_to_summarize,
    summaryPrompt: settings.summary_prompt ?? undefined,
    maxInputTokens: input.modelEntry.max_input_tokens,
    tokenCounter: input.tokenCounter,
    onWarning: input.onWarning,
    logger: input.logger?.child("summarization"),
    ...extra,
  });
}

/** `skills.container_path` and `summarization.skill_file_read_tool_names` as durable-context options. */
function durableContext(config: AppConfig, onWarning: (message: string) => void, logger?: Logger): AgentMiddleware {
  return durableContextMiddleware({
    skillsContainerPath: config.skills.container_path,
    skillReadToolNames: config.summarization.skill_file_read_tool_names,
    onWarning,
    logger: logger?.child("durable-context"),
  });
}

/** `loop_detection:` as middleware options. */
function loopDetection(config: AppConfig, onWarning: (message: string) => void, logger?: Logger): AgentMiddleware {
  const { warn_threshold, hard_limit, window_size } = config.loop_detection;
  return loopDetectionMiddleware({
    warnThreshold: warn_threshold,
    hardLimit: hard_limit,
    windowSize: window_size,
    onWarning,
    logger: logger?.child("loop-detection"),
  });
}

/** `tool_progress:` as middleware options. */
function toolProgress(config: AppConfig, onWarning: (message: string) => void, logger?: Logger): AgentMiddleware {
  return toolProgressMiddleware({
    warnAfter: config.tool_progress.warn_after,
    stopAfter: config.tool_progress.stop_after,
    onWarning,
    logger: logger?.child("tool-progress"),
  });
}
