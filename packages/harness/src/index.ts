/**
 * The public surface of `@deerflow/harness`. Every export is named here; anything not listed is
 * internal and may change. Test helpers live in `@deerflow/harness/testing`.
 */
export { createLeadAgent, type LeadAgent, type LeadAgentInfo, type LeadAgentOptions } from "./agent/create-lead-agent.js";
export { buildLeadChain, buildSubagentChain, type LeadChainInput, type LeadRuntime, type SubagentChainInput } from "./agent/lead-agent-chain.js";
export {
  type AgentRunOptions,
  createHarness,
  DEFAULT_RECURSION_LIMIT,
  type Harness,
  type HarnessAgent,
  type HarnessOptions,
  type HarnessSetup,
} from "./agent/harness.js";
export { renderLeadPrompt, type LeadPromptOptions } from "./agent/prompt.js";
export { loadConfig, parseConfigObject, parseConfigText, type LoadConfigOptions } from "./config/load-config.js";
export { type AppConfig, type ContextSize, type ModelEntry, type ModelProvider } from "./config/schema.js";
export { ConfigError, HarnessError, type HarnessErrorCode, isHarnessError, ModelError, SandboxError } from "./errors.js";
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
export { formatMemoryForDisplay } from "./memory/display.js";
export { renderMemoryBlock } from "./memory/inject.js";
export { memoryPath } from "./memory/memory-path.js";
export { type Memory, type MemoryFact, parseMemoryText } from "./memory/memory-schema.js";
export { createMemoryService, type MemoryService, type MemorySettings } from "./memory/memory-service.js";
export { createMemoryStore, type MemoryStore, serializeMemory } from "./memory/memory-store.js";
export { openMemoryStore } from "./memory/open-memory-store.js";
export { deferredToolsMiddleware, type DeferredToolsOptions } from "./mcp/deferred-tools.js";
export { createMcpService, type McpServerStatus, type McpService, type McpServiceOptions } from "./mcp/mcp-service.js";
export { openMcpService, type OpenMcpServiceOptions } from "./mcp/open-mcp-service.js";
export { resolveMcpServers, type ResolvedServers, type ResolveServersOptions } from "./mcp/resolve-servers.js";
export { type McpServerSpec, type McpTransport } from "./mcp/server-spec.js";
export { McpServerInput, McpSpecError, toServerSpec } from "./mcp/server-spec.js";
export { memoryMiddleware } from "./middleware/memory.js";
export { toolCallRepairMiddleware } from "./middleware/tool-call-repair.js";
export { toolErrorsMiddleware } from "./middleware/tool-errors.js";
export { loopDetectionMiddleware, type LoopDetectionOptions } from "./middleware/loop-detection.js";
export { tokenUsageMiddleware, type TokenUsage, type TokenUsageOptions } from "./middleware/token-usage.js";
export { createChatModel, type CreateChatModelOptions } from "./model/create-chat-model.js";
export { DemoChatModel } from "./model/demo-model.js";
export { describeRunError } from "./model/describe-run-error.js";
export { availableModels, type ModelSelection, selectModel } from "./model/select-model.js";
export { PathPolicy, resolveVirtualPath, type AllowedPath } from "./sandbox/path-policy.js";
export { FileAccessError, openReadChecked, readFileChecked, withDirChecked, withPathLock } from "./sandbox/safe-fs.js";
export { sandboxIdFor } from "./sandbox/provider.js";
export { threadPaths, threadUserDataDir, validateThreadId, VIRTUAL_OUTPUTS, VIRTUAL_UPLOADS } from "./sandbox/virtual-paths.js";
export { loadSkills, type SkillSummary } from "./skills/load-skills.js";
export { findExtensionsFile, type ExtensionsLocation } from "./config/extensions-file.js";
export { readExtensionsFile, updateExtensionsFile } from "./config/extensions-file.js";
export {
  BUNDLED_SKILLS_DIR,
  customSkillsDir,
  discoverSkills,
  readSkillStates,
  setSkillEnabled,
  skillRoots,
  type SkillCategory,
  type SkillRecord,
} from "./skills/skill-catalog.js";
export { installSkillArchive, type InstalledSkill, type InstallSkillOptions } from "./skills/install-skill.js";
export { SKILL_ARCHIVE_LIMITS, type SkillArchiveLimits } from "./skills/read-skill-archive.js";
export { parseSlashSkill, RESERVED_SLASH_NAMES } from "./skills/slash.js";
export { skillActivationMiddleware, type SkillActivationOptions } from "./middleware/skill-activation.js";
export { clarificationFromMessages } from "./middleware/clarification.js";
export { cancelledTaskResults } from "./tools/task.js";
export { DEFAULT_UPLOAD_LIMITS, saveUploads, type UploadLimits } from "./uploads/save-uploads.js";
export { cleanUploadName, STAGING_PREFIX } from "./uploads/upload-name.js";
export {
  type DelegationEntry,
  type SkillEntry,
  type ThreadDataState,
  type TodoItem,
  type UploadedFile,
  type ViewedImage,
} from "./state/reducers.js";
export { type ThreadState, ThreadStateSchema } from "./state/thread-state.js";
export { openCheckpointStore, type CheckpointStore, type CheckpointStoreOptions, storageError } from "./storage/checkpointer.js";
export { collectLargeValues, createLargeValueSerde, LARGE_VALUE_CHARS, type LargeValueTable, sqliteLargeValues } from "./storage/large-values.js";
export { createPostgresPruner } from "./storage/postgres-retention.js";
export { collectPostgresLargeValues, createPostgresSaver, postgresLargeValues } from "./storage/postgres-large-values.js";
export { type CheckpointPruner, createSqlitePruner, keptCheckpointIds, type PruneReport, reclaimSpace, RETENTION_POLICIES, type RetentionPolicy } from "./storage/retention.js";
export { checkpointsPath, databaseFile, resolveHome } from "./storage/home.js";
export {
  connectionError,
  migrate,
  MIGRATIONS,
  openPostgresDatabase,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
  redact,
  resolveDatabaseUrl,
  SCHEMA_VERSION,
} from "./storage/postgres-database.js";
export { createLogger, type Logger, type LoggerOptions, type LogLevel, silentLogger } from "./logger.js";
export { type LeaseHolder, openThreadLeases, ThreadBusyError, type ThreadLease, type ThreadLeaseOptions, type ThreadLeases } from "./storage/thread-lease.js";
export { openPostgresThreadLeases } from "./storage/postgres-thread-lease.js";
export { createWebTools, SEARCH_PROVIDERS, type WebToolsOptions } from "./tools/web/create-web-tools.js";
export { safeFetch, WebRequestError, type SafeFetchOptions, type SafeResponse } from "./tools/web/safe-fetch.js";
export { blockedReason, parseAllowList, type AllowList } from "./tools/web/address-policy.js";
