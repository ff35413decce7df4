/**
 * Pins the public surface of `@deerflow/harness`: the runtime exports of `src/index.ts` and the names of
 * its type exports. A new export (or a removed one) fails here until this list is updated with it, so
 * the surface only changes on purpose. The CLI and server use these names and nothing deeper.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import ts from "typescript";
import * as harness from "../src/index.js";

const VALUES = [
  "BUNDLED_SKILLS_DIR", "ConfigError", "ContextSize", "DEFAULT_RECURSION_LIMIT", "DEFAULT_UPLOAD_LIMITS",
  "DelegationEntry", "DelegationStatus", "DelegationStopReason", "DemoChatModel", "FileAccessError", "HarnessError",
  "LLM_DEFAULTS", "LOOP_DETECTION_DEFAULTS", "MEMORY_DEFAULTS", "McpServerInput", "McpSpecError", "ModelEntry",
  "ModelError", "PathPolicy", "RETENTION_POLICIES", "SANDBOX_LIMIT_DEFAULTS", "SCHEMA_VERSION", "SEARCH_PROVIDERS",
  "SKILL_ARCHIVE_LIMITS", "STAGING_PREFIX", "SUBAGENTS_DEFAULTS", "SandboxError", "SkillEntry",
  "SubagentStepSummary", "SubagentTokenUsage", "THREAD_ID_RULE", "TITLE_DEFAULTS", "TaskEvent",
  "TerminalDelegationStatus", "ThreadBusyError", "ThreadDataState", "ThreadStateSchema", "TodoItem", "TodoStatus",
  "UPLOADS_DEFAULTS", "UploadedFile", "VIRTUAL_OUTPUTS", "VIRTUAL_UPLOADS", "ViewedImage", "WebRequestError",
  "availableModels", "buildLeadChain", "buildSubagentChain", "cancelledTaskResults", "checkpointsPath",
  "clarificationFromMessages", "clarificationMiddleware", "cleanUploadName", "collectLargeValues",
  "contextGuardMiddleware", "countTokens", "createChatModel", "createHarness", "createHistoryArchive",
  "createLeadAgent", "createLogger", "createMcpService", "createMemoryService", "createMemoryStore",
  "createSqlitePruner", "createTokenCounter", "createWebTools", "customSkillsDir", "danglingToolCallMiddleware",
  "databaseFile", "deferredToolsMiddleware", "describeRunError", "discoverSkills", "durableContextMiddleware",
  "findExtensionsFile", "formatHistory", "formatMemoryForDisplay", "installSkillArchive", "isHarnessError",
  "isValidThreadId", "loadConfig", "loadSkills", "loopDetectionMiddleware", "memoryMiddleware", "memoryPath",
  "mergeHistory", "migrate", "modelRetryMiddleware", "openCheckpointStore", "openMcpService", "openMemoryStore",
  "openPostgresDatabase", "openPostgresThreadLeases", "openReadChecked", "openThreadLeases", "parseConfigObject",
  "parseConfigText", "parseMemoryText", "parseSlashSkill", "readExtensionsFile", "readFileChecked",
  "readSkillStates", "reclaimSpace", "redact", "renderLeadPrompt", "renderMemoryBlock", "resolveDatabaseUrl",
  "resolveHome", "resolveMcpServers", "resolveVirtualPath", "safeFetch", "sandboxIdFor", "sandboxMiddleware",
  "saveUploads", "selectModel", "serializeMemory", "setSkillEnabled", "silentLogger", "skillActivationMiddleware",
  "skillRoots", "subagentLimitMiddleware", "summarizationMiddleware", "threadDataMiddleware", "threadPaths",
  "threadUserDataDir", "titleMiddleware", "toServerSpec", "todoListMiddleware", "tokenUsageMiddleware",
  "toolCallRepairMiddleware", "toolErrorsMiddleware", "updateExtensionsFile", "uploadsMiddleware",
  "validateThreadId", "viewImageMiddleware", "withDirChecked", "withPathLock",
  "asyncArchive", "collectPostgresLargeValues", "createPostgresHistoryArchive", "createPostgresPruner",
  "importSqliteArchive", "inTransaction", "runLeaseMs",
];

const TYPES = [
  "AgentRunOptions", "AllowedPath", "AppConfig", "CheckpointPruner", "CheckpointStore", "CheckpointStoreOptions",
  "ContextGuardOptions", "CreateChatModelOptions", "DeferredToolsOptions", "DurableContextOptions",
  "ExtensionsLocation", "Harness", "HarnessAgent", "HarnessErrorCode", "HarnessOptions", "HarnessSetup",
  "HarnessStreamEvent", "HistoryArchive", "HistoryEntry", "InstallSkillOptions", "InstalledSkill", "LeadAgent",
  "LeadAgentInfo", "LeadAgentOptions", "LeadChainInput", "LeadPromptOptions", "LeadRuntime", "LeaseHolder",
  "LlmRetryEvent", "LoadConfigOptions", "LogLevel", "Logger", "LoggerOptions", "LoopDetectionOptions",
  "McpServerSpec", "McpServerStatus", "McpService", "McpServiceOptions", "McpTransport", "Memory", "MemoryFact",
  "MemoryMiddlewareOptions", "MemoryService", "MemorySettings", "MemoryStore", "ModelProvider", "ModelRetryOptions",
  "ModelSelection", "OpenMcpServiceOptions", "PendingClarification", "PostgresDatabase", "PostgresDatabaseOptions",
  "PruneReport", "ResolveServersOptions", "ResolvedServers", "RetentionPolicy", "SafeFetchOptions", "SafeResponse",
  "SandboxMiddlewareOptions", "SkillActivationOptions", "SkillArchiveLimits", "SkillCategory", "SkillRecord",
  "SkillSummary", "SubagentChainInput", "SubagentLimitOptions", "SummarizationOptions", "TextTokenCounter",
  "ThreadDataOptions", "ThreadLease", "ThreadLeaseOptions", "ThreadLeases", "ThreadState", "TitleOptions",
  "TodoListOptions", "TokenCounter", "TokenUsage", "TokenUsageOptions", "ToolCallRepairOptions", "ToolErrorsOptions",
  "UploadLimits", "UploadsOptions", "ViewImageOptions", "WebToolsOptions",
  "AnyHistoryArchive", "ArchiveImport", "AsyncHistoryArchive",
];

/** The names `index.ts` exports, split into values and type-only exports, read from its syntax. */
function declaredExports(): { values: string[]; types: string[] } {
  const file = new URL("../src/index.ts", import.meta.url);
  const source = ts.createSourceFile("index.ts", readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const values: string[] = [];
  const types: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) (statement.isTypeOnly || element.isTypeOnly ? types : values).push(element.name.text);
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) {
      assert.fail("index.ts declares an export in place; re-export it by name from its module instead");
    }
  }
  return { values: values.sort(), types: types.sort() };
}

test("the runtime exports of @deerflow/harness are exactly the pinned list", () => {
  assert.deepEqual(Object.keys(harness).sort(), [...VALUES].sort());
});

test("index.ts names every export (no export *) and its type exports are the pinned list", () => {
  const source = readFileSync(new URL("../src/index.ts", import.meta.url), "utf8");
  assert.doesNotMatch(source, /export \*/);
  const declared = declaredExports();
  assert.deepEqual(declared.values, [...VALUES].sort());
  assert.deepEqual(declared.types, [...TYPES].sort());
});
