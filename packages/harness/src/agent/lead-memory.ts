/**
 * Creates the memory service of a run from the `memory:` section. Extraction needs a model that
 * answers in a JSON format, so with the demo model only the injection side runs (stored memory is
 * still put into the prompt).
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AppConfig } from "../config/schema.js";
import type { Logger } from "../logger.js";
import { createMemoryService, type MemoryService } from "../memory/memory-service.js";
import { createChatModel } from "../model/create-chat-model.js";
import { type ModelSelection, selectModel } from "../model/select-model.js";

/** What the memory service of a run depends on. */
export interface LeadMemoryContext {
  home: string;
  agentName?: string;
  /** The user whose memory this is; absent: the local user. */
  userId?: string;
  runModel: ModelSelection;
  /** A model instance passed in code; used for extraction when `memory.model_name` is not set. */
  chatModel?: BaseChatModel;
  env: Record<string, string | undefined>;
  onWarning: (message: string) => void;
  logger?: Logger;
}

/** The memory service of this run, or null when memory is off. */
export function createLeadMemory(config: AppConfig, context: LeadMemoryContext): MemoryService | null {
  const settings = config.memory;
  if (!settings.enabled) return null;
  const entry = memoryModelEntry(config, context);
  // Bounded tightly: a hung update would otherwise keep the CLI from exiting (it flushes memory first).
  const timeoutSeconds = Math.min(
    entry.timeout ?? config.llm_call.timeout_seconds,
    config.llm_call.memory_timeout_seconds,
  );
  const model =
    !settings.model_name && context.chatModel
      ? context.chatModel
      : createChatModel(entry, { thinkingEnabled: false, timeoutSeconds });
  return createMemoryService({
    home: context.home,
    agentName: context.agentName,
    userId: context.userId,
    model,
    settings: {
      extractionEnabled: memoryLearns(config, context),
      injectionEnabled: settings.injection_enabled,
      storagePath: settings.storage_path || undefined,
      debounceSeconds: settings.debounce_seconds,
      maxFacts: settings.max_facts,
      factConfidenceThreshold: settings.fact_confidence_threshold,
      maxInjectionTokens: settings.max_injection_tokens,
      guaranteedCategories: settings.guaranteed_categories,
      guaranteedTokenBudget: settings.guaranteed_token_budget,
    },
    onWarning: context.onWarning,
    logger: context.logger,
  });
}

function memoryModelEntry(config: AppConfig, context: Pick<LeadMemoryContext, "runModel" | "env">) {
  return config.memory.model_name
    ? selectModel(config, { modelName: config.memory.model_name }, context.env).entry
    : context.runModel.entry;
}

/**
 * Whether the memory of this context learns (queues conversations for extraction): memory is on and its
 * model can answer in JSON (not the demo model, unless a model instance was passed in code).
 */
export function memoryLearns(
  config: AppConfig,
  context: Pick<LeadMemoryContext, "runModel" | "env" | "chatModel">,
): boolean {
  return config.memory.enabled && (memoryModelEntry(config, context).use !== "demo" || Boolean(context.chatModel));
}
