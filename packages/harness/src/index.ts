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
export { createHistoryArchive, type HistoryArchive, type HistoryEntry } from "./history/history-archive.js";
export { formatMemoryForDisplay } from "./memory/display.js";
export { renderMemoryBlock } from "./memory/inject.js";
export { memoryPath } from "./memory/memory-path.js";
export { type Memory, type MemoryFact } from "./memory/memory-schema.js";
export { createMemoryService, type MemoryService, type MemorySettings } from "./memory/memory-service.js";
export { createMemoryStore, type MemoryStore, serializeMemory } from "./memory/memory-store.js";
export { openMemoryStore } from "./memory/open-memory-store.js";
export { memoryMiddleware } from "./middleware/memory.js";
export { toolCallRepairMiddleware } from "./middleware/tool-call-repair.js";
export { createChatModel, type CreateChatModelOptions } from "./model/create-chat-model.js";
export { DemoChatModel } from "./model/demo-model.js";
export { describeRunError } from "./model/describe-run-error.js";
export { availableModels, type ModelSelection, selectModel } from "./model/select-model.js";
export { resolveVirtualPath } from "./sandbox/path-policy.js";
export { sandboxIdFor } from "./sandbox/provider.js";
export { threadPaths, validateThreadId } from "./sandbox/virtual-paths.js";
export { loadSkills, type SkillSummary } from "./skills/load-skills.js";
export { clarificationFromMessages } from "./middleware/clarification.js";
export { cancelledTaskResults } from "./tools/task.js";
export { saveUploads, type UploadLimits } from "./uploads/save-uploads.js";
export {
  type DelegationEntry,
  type SkillEntry,
  type ThreadDataState,
  type TodoItem,
  type UploadedFile,
  type ViewedImage,
} from "./state/reducers.js";
export { type ThreadState, ThreadStateSchema } from "./state/thread-state.js";
export { openCheckpointStore, type CheckpointStore } from "./storage/checkpointer.js";
export { checkpointsPath, resolveHome } from "./storage/home.js";
