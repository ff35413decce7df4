/**
 * The public surface of `@deerflow/harness`. Every export is named here, grouped by what a caller builds
 * with it; anything not listed is internal and may change. Test helpers live in `@deerflow/harness/testing`.
 * `test/public-surface.test.ts` pins this list, so an addition is a deliberate change.
 */

// --- The harness and the lead agent: what the CLI and the server build on.
export {
  type AgentRunOptions,
  createHarness,
  DEFAULT_RECURSION_LIMIT,
  type Harness,
  type HarnessAgent,
  type HarnessOptions,
  type HarnessSetup,
  type ThreadAccess,
} from "./agent/harness.js";
export {
  createLeadAgent,
  type LeadAgent,
  type LeadAgentInfo,
  type LeadAgentOptions,
} from "./agent/create-lead-agent.js";
export {
  buildLeadChain,
  buildSubagentChain,
  type LeadChainInput,
  type LeadRuntime,
  type SubagentChainInput,
} from "./agent/lead-agent-chain.js";
export { renderLeadPrompt, type LeadPromptOptions } from "./agent/prompt.js";
export { type CompactThreadOptions, compactThread, type ThreadCompactResult } from "./agent/compact-thread.js";

// --- Middleware factories: the lead chain's entries, in chain order, then the optional ones.
export { threadDataMiddleware, type ThreadDataOptions } from "./middleware/thread-data.js";
export { uploadsMiddleware, type UploadsOptions } from "./middleware/uploads.js";
export { sandboxMiddleware, type SandboxMiddlewareOptions } from "./middleware/sandbox.js";
export { danglingToolCallMiddleware } from "./middleware/dangling-tool-call/index.js";
export { durableContextMiddleware, type DurableContextOptions } from "./middleware/durable-context/index.js";
export {
  type BeforeSummarizationHook,
  type SummarizationEvent,
  summarizationMiddleware,
  type SummarizationOptions,
} from "./middleware/summarization/index.js";
export { isSystemReminder, SYSTEM_REMINDER_FLAG } from "./messages/system-reminder.js";
export { todoListMiddleware, type TodoListOptions } from "./middleware/todo-list.js";
export { titleMiddleware, type TitleOptions } from "./middleware/title.js";
export { memoryMiddleware, type MemoryMiddlewareOptions } from "./middleware/memory.js";
export { viewImageMiddleware, type ViewImageOptions } from "./middleware/view-image.js";
export { subagentLimitMiddleware, type SubagentLimitOptions } from "./middleware/subagent-limit.js";
export { createSubagentRegistry } from "./subagents/registry.js";
export {
  clarificationFromMessages,
  clarificationMiddleware,
  type ClarificationOptions,
  type PendingClarification,
} from "./middleware/clarification.js";
export type { ClarificationField } from "./tools/ask-clarification.js";
export { contextGuardMiddleware, type ContextGuardOptions } from "./middleware/context-guard/index.js";
export { loopDetectionMiddleware, type LoopDetectionOptions } from "./middleware/loop-detection.js";
export { type InputSanitizationOptions, inputSanitizationMiddleware } from "./middleware/input-sanitization.js";
export {
  type ToolResultSanitizationOptions,
  toolResultSanitizationMiddleware,
} from "./middleware/tool-result-sanitization.js";
export { type ToolProgressOptions, toolProgressMiddleware } from "./middleware/tool-progress.js";
export { type ReadBeforeWriteOptions, readBeforeWriteMiddleware } from "./middleware/read-before-write.js";
export { modelRetryMiddleware, type ModelRetryOptions } from "./middleware/model-retry.js";
export { modelCircuitMiddleware, type ModelCircuitOptions } from "./middleware/model-circuit.js";
export { ModelCircuits, type CircuitLimits } from "./model/circuit-breaker.js";
export { emptyAnswerMiddleware, type EmptyAnswerOptions } from "./middleware/empty-answer.js";
export { finishReasonMiddleware, type FinishReasonOptions } from "./middleware/finish-reason.js";
export type { ToolErrorType, ToolResultMeta } from "./middleware/tool-result-meta.js";
export { skillActivationMiddleware, type SkillActivationOptions } from "./middleware/skill-activation.js";
export { tokenUsageMiddleware, type TokenUsage, type TokenUsageOptions } from "./middleware/token-usage.js";
export { toolCallRepairMiddleware, type ToolCallRepairOptions } from "./middleware/tool-call-repair.js";
export { toolErrorsMiddleware, type ToolErrorsOptions } from "./middleware/tool-errors.js";
export {
  type ApprovalDecision,
  type ApprovalRequest,
  resumeCommand,
  type ToolPolicy,
  toolPolicyMiddleware,
  type ToolPolicyOptions,
} from "./middleware/tool-policy.js";
export { deferredToolsMiddleware, type DeferredToolsOptions } from "./mcp/deferred-tools.js";

// --- Config: config.yaml as a frozen value, with the defaults factories share.
export { loadConfig, parseConfigObject, parseConfigText, type LoadConfigOptions } from "./config/load-config.js";
export {
  type AppConfig,
  type AuthConfig,
  type ChannelsConfig,
  ContextSize,
  ModelEntry,
  type ModelProvider,
  type QuotasConfig,
  type SlackChannelConfig,
  type TelegramChannelConfig,
} from "./config/schema.js";
export {
  LLM_DEFAULTS,
  LOOP_DETECTION_DEFAULTS,
  MEMORY_DEFAULTS,
  SANDBOX_LIMIT_DEFAULTS,
  SUBAGENTS_DEFAULTS,
  TITLE_DEFAULTS,
  UPLOADS_DEFAULTS,
} from "./config/defaults.js";
export {
  findExtensionsFile,
  readExtensionsFile,
  updateExtensionsFile,
  type ExtensionsLocation,
} from "./config/extensions-file.js";

// --- Models and token counting.
export { loadChatModelProviders } from "./model/chat-model-providers.js";
export { createChatModel, type CreateChatModelOptions } from "./model/create-chat-model.js";
export { DemoChatModel } from "./model/demo-model.js";
export { describeRunError } from "./model/describe-run-error.js";
export { availableModels, type ModelSelection, selectModel } from "./model/select-model.js";
export { countTokens, createTokenCounter, type TextTokenCounter, type TokenCounter } from "./model/tokens.js";

// --- Tools: web research (the sandbox tools come with the agent), subagent results, uploads.
export { createWebTools, SEARCH_PROVIDERS, type WebToolsOptions } from "./tools/web/create-web-tools.js";
export { type AllowList, parseAllowList } from "./tools/web/address-policy.js";
export { safeFetch, WebRequestError, type SafeFetchOptions, type SafeResponse } from "./tools/web/safe-fetch.js";
export { cancelledTaskResults } from "./tools/task.js";
export { DEFAULT_UPLOAD_LIMITS, saveUploads, type UploadLimits } from "./uploads/save-uploads.js";
export { cleanUploadName, STAGING_PREFIX } from "./uploads/upload-name.js";

// --- Sandbox: virtual paths, the thread id rule, and checked file access for routes that serve files.
export { type AllowedPath, PathPolicy, resolveVirtualPath } from "./sandbox/path-policy.js";
export { FileAccessError, openReadChecked, readFileChecked, withDirChecked, withPathLock } from "./sandbox/safe-fs.js";
export { sandboxIdFor } from "./sandbox/provider.js";
export {
  isValidThreadId,
  THREAD_ID_RULE,
  threadPaths,
  threadUserDataDir,
  validateThreadId,
  VIRTUAL_OUTPUTS,
  VIRTUAL_UPLOADS,
} from "./sandbox/virtual-paths.js";

// --- Memory.
export {
  AGENT_NAME,
  type AgentDefinition,
  AgentSettings,
  normaliseAgentDefinitionName,
  SETTING_KEYS,
  TOOL_GROUPS,
} from "./custom-agents/agent-definition.js";
export {
  type AgentChanges,
  type AgentRecord,
  type AgentStore,
  type AgentVersion,
  agentsDir,
  createAgentStore,
} from "./custom-agents/agent-store.js";
export { type AdoptedMemory, adoptLocalMemory } from "./memory/adopt-local-memory.js";
export { addManualFact, type ManualFactRefusal } from "./memory/apply-update.js";
export { formatMemoryForDisplay } from "./memory/display.js";
export { renderMemoryBlock } from "./memory/inject.js";
export { memoryPath } from "./memory/memory-path.js";
export { type Memory, type MemoryFact, parseMemoryText } from "./memory/memory-schema.js";
export { createMemoryService, type MemoryService, type MemorySettings } from "./memory/memory-service.js";
export { createMemoryStore, type MemoryStore, serializeMemory } from "./memory/memory-store.js";
export { openMemoryStore } from "./memory/open-memory-store.js";

// --- Skills.
export { loadSkills, type SkillSummary } from "./skills/load-skills.js";
export {
  BUNDLED_SKILLS_DIR,
  customSkillsDir,
  discoverSkills,
  readSkillStates,
  setSkillEnabled,
  type SkillCategory,
  type SkillRecord,
  skillRoots,
} from "./skills/skill-catalog.js";
export { installSkillArchive, type InstalledSkill, type InstallSkillOptions } from "./skills/install-skill.js";
export { SKILL_ARCHIVE_LIMITS, type SkillArchiveLimits } from "./skills/read-skill-archive.js";
export { parseSlashSkill } from "./skills/slash.js";

// --- MCP.
export { createMcpService, type McpServerStatus, type McpService, type McpServiceOptions } from "./mcp/mcp-service.js";
export { openMcpService, type OpenMcpServiceOptions } from "./mcp/open-mcp-service.js";
export { resolveMcpServers, type ResolvedServers, type ResolveServersOptions } from "./mcp/resolve-servers.js";
export { checkStdioAllowed, isBareRunnerEntry, maskStdioArgs, STDIO_ALLOW_HINT } from "./mcp/stdio-allow.js";
export {
  McpServerInput,
  type McpServerSpec,
  McpSpecError,
  type McpTransport,
  toServerSpec,
} from "./mcp/server-spec.js";

// --- Storage and history: checkpoints, retention, Postgres, thread leases, the message archive.
export { type CheckpointStore, type CheckpointStoreOptions, openCheckpointStore } from "./storage/checkpointer.js";
export { checkpointsPath, databaseFile, resolveHome } from "./storage/home.js";
export { collectLargeValues } from "./storage/large-values.js";
export { collectPostgresLargeValues } from "./storage/postgres-large-values.js";
export { createPostgresPruner } from "./storage/postgres-retention.js";
export { inlineParams, queryBatch, sqlLiteral } from "./storage/postgres-batch.js";
export type { LeanPostgresSaver, WriteGuard, WriteRider } from "./storage/postgres-saver.js";
export { cacheHead, type HeadCachingSaver } from "./storage/head-cache.js";
export {
  type CheckpointPruner,
  createSqlitePruner,
  type PruneGuard,
  type PruneReport,
  reclaimSpace,
  RETENTION_POLICIES,
  type RetentionPolicy,
} from "./storage/retention.js";
export {
  inTransaction,
  migrate,
  openPostgresDatabase,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
  redact,
  resolveDatabaseUrl,
  SCHEMA_VERSION,
} from "./storage/postgres-database.js";
export {
  type LeaseHolder,
  openThreadLeases,
  runLeaseMs,
  ThreadBusyError,
  type ThreadLease,
  type ThreadLeaseOptions,
  type ThreadLeases,
} from "./storage/thread-lease.js";
export { openPostgresThreadLeases } from "./storage/postgres-thread-lease.js";
export { formatHistory, mergeHistory } from "./history/format-history.js";
export {
  type AnyHistoryArchive,
  asyncArchive,
  type AsyncHistoryArchive,
  createHistoryArchive,
  type HistoryArchive,
  type HistoryEntry,
} from "./history/history-archive.js";
export { type ArchiveImport, importSqliteArchive } from "./history/import-sqlite-archive.js";
export { createPostgresHistoryArchive } from "./history/postgres-history-archive.js";

// --- Thread state: the persisted shapes (zod schema and type under one name) and the state schema.
export {
  DelegationEntry,
  DelegationStatus,
  DelegationStopReason,
  GoalState,
  SkillEntry,
  TaskNote,
  TerminalDelegationStatus,
  ThreadDataState,
  TodoItem,
  TodoStatus,
  UploadedFile,
  ViewedImage,
} from "./state/shapes.js";
export { type ThreadState, ThreadStateSchema } from "./state/thread-state.js";
export { createGoal, GOAL_MAX_CHARS, type GoalCommand, parseGoalCommand } from "./state/goal.js";

// --- Events, errors and logging.
export {
  type HarnessStreamEvent,
  type LlmRetryEvent,
  SubagentStepSummary,
  SubagentTokenUsage,
  TaskEvent,
} from "./events.js";
export {
  ConfigError,
  HarnessError,
  type HarnessErrorCode,
  isHarnessError,
  ModelError,
  SandboxError,
} from "./errors.js";
export { createLogger, type Logger, type LoggerOptions, type LogLevel, silentLogger } from "./logger.js";
export {
  type ConversationLine,
  FOLLOW_UP_INSTRUCTION_START,
  parseQuestionList,
  suggestFollowUps,
} from "./suggestions/follow-ups.js";
export {
  EXPORT_FORMATS,
  type ExportedThread,
  type ExportFormat,
  exportConversation,
  exportFileName,
  type TranscriptMessage,
  transcriptOf,
} from "./history/export-conversation.js";
