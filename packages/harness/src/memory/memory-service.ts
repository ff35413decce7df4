/**
 * Memory for one agent of one user, wired: store + updater + journaled, debounced queue + middleware + prompt block,
 * built from the `memory:` settings. The lead agent chain takes `middleware()` and `promptBlock()`.
 * Every queued conversation is journaled on disk until it is learned from, so `close()` never waits for
 * a model: what is unfinished is left to the next process, which calls `resume()` when it opens the home.
 * A caller that wants memory up to date before it goes on awaits `flush()` first.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { memoryMiddleware } from "../middleware/memory.js";
import { renderMemoryBlock } from "./inject.js";
import type { TextTokenCounter } from "../model/tokens.js";
import { type Logger, silentLogger } from "../logger.js";
import { memoryJournalPath, openMemoryJournal } from "./memory-journal.js";
import { memoryPath, memoryRoot, memoryUserRoot, normaliseAgentName, normaliseUserId } from "./memory-path.js";
import { type MemoryQueue, createMemoryQueue } from "./memory-queue.js";
import { type MemoryStore, createMemoryStore } from "./memory-store.js";
import { type MemoryUpdater, createMemoryUpdater } from "./memory-updater.js";
import { detectMemorySignals } from "./memory-signals.js";
import { MEMORY_DEFAULTS } from "../config/defaults.js";

/** The `memory:` config section, camel-cased. Every key is optional; defaults are DeerFlow's. */
export interface MemorySettings {
  /** Learn from conversations (default true). When false nothing is queued or injected. */
  enabled?: boolean;
  /** Put the `<memory>` block into the system prompt (default true). */
  injectionEnabled?: boolean;
  /** Queue conversations for fact extraction (default true; off for a model that cannot answer in JSON). */
  extractionEnabled?: boolean;
  /** Directory used instead of `home` for memory files, absolute or relative to `home`. */
  storagePath?: string;
  /** Quiet time per thread before an update runs (default 30). */
  debounceSeconds?: number;
  /** Most facts kept (default 100). */
  maxFacts?: number;
  /** Facts below this confidence are dropped (default 0.7). */
  factConfidenceThreshold?: number;
  /** Budget of the injected block (default 2000). */
  maxInjectionTokens?: number;
  /** Fact categories always injected, from their own budget (default `["correction"]`). */
  guaranteedCategories?: readonly string[];
  /** Budget of the guaranteed facts, on top of `maxInjectionTokens` (default 500). */
  guaranteedTokenBudget?: number;
}

/** Options of `createMemoryService`. */
export interface MemoryServiceOptions {
  /** The DeerFlow home directory. */
  home: string;
  /** Custom agent whose memory this is; omitted for the default agent. */
  agentName?: string;
  /**
   * User whose memory this is (files under `{root}/users/{userId}`); omitted for the local user. Letters,
   * digits, "-" and "_", 1 to 64 characters, else `ConfigError`.
   */
  userId?: string;
  /** Model for updates (`memory.model_name` or the run's model, thinking off). */
  model: BaseChatModel;
  settings?: MemorySettings;
  /** Token counter for the injection budget (default: 4 characters per token). */
  tokenCounter?: TextTokenCounter;
  onWarning?: (message: string) => void;
  /** The harness log: queued conversations (debug) and applied updates (info). */
  logger?: Logger;
}

/** One agent's memory (of one user), ready to wire into an agent and a process lifecycle. */
export interface MemoryService {
  /** The memory file. */
  readonly path: string;
  readonly store: MemoryStore;
  readonly updater: MemoryUpdater;
  readonly queue: MemoryQueue;
  /** The memory middleware for chain slot 9 (queues nothing when memory is disabled). */
  middleware(): ReturnType<typeof memoryMiddleware>;
  /** The `<memory>` block for the system prompt, or "" (disabled, injection off, empty, or unreadable). */
  promptBlock(): string;
  /** The journal of conversations not learned from yet (shared by the agents of one user). */
  readonly journalPath: string;
  /**
   * Learns, in the background, from this agent's journaled conversations whose process is gone; returns
   * how many. Nothing when extraction is off (they wait for a process that can learn).
   */
  resume(): number;
  /** The id of the last message of a thread this memory has learned from in this process (`MemoryQueue.learnedThrough`). */
  learnedThrough(threadId: string): string | undefined;
  /** Processes every pending conversation now and waits for them. */
  flush(): Promise<void>;
  /**
   * Stops accepting conversations and abandons unfinished updates at once; the journal keeps them for
   * the next process. Never waits for a model.
   */
  close(): Promise<void>;
}

/**
 * Creates the memory service of one agent.
 *
 * @example
 * const memory = createMemoryService({ home, agentName: "researcher", model, settings: { debounceSeconds: 30 }, onWarning: console.warn });
 * const systemPrompt = basePrompt + memory.promptBlock();
 * // ... run the agent with memory.middleware() in its chain ...
 * await memory.close();
 */
export function createMemoryService(options: MemoryServiceOptions): MemoryService {
  const settings = options.settings ?? {};
  const enabled = settings.enabled ?? true;
  const warn = options.onWarning ?? (() => {});
  const log = (options.logger ?? silentLogger).child("memory");
  const agentName = normaliseAgentName(options.agentName);
  const userId = normaliseUserId(options.userId);
  const root = memoryUserRoot(memoryRoot(options.home, settings.storagePath), userId);
  const learning = enabled && (settings.extractionEnabled ?? true);
  const journal = openMemoryJournal(memoryJournalPath(root), agentName, { onWarning: warn, userId });
  const store = createMemoryStore(memoryPath(root, agentName), { onWarning: warn });
  const updater = createMemoryUpdater({
    model: options.model,
    store,
    factConfidenceThreshold: settings.factConfidenceThreshold,
    maxFacts: settings.maxFacts,
    onWarning: warn,
  });
  const queue = createMemoryQueue({
    debounceMs: (settings.debounceSeconds ?? MEMORY_DEFAULTS.debounce_seconds) * 1000,
    process: async (job, signal) => {
      const outcome = await updater.update(job.conversation, {
        threadId: job.threadId,
        // An entry journaled by an older version carries none: look at its conversation instead.
        signals: job.signals ?? detectMemorySignals(job.conversation),
        signal,
      });
      if (outcome.applied) {
        log.info(
          `updated ${store.path} from thread ${job.threadId}: ${outcome.added} facts added, ${outcome.removed} removed${outcome.reinforced ? `, ${outcome.reinforced} confirmed` : ""}${outcome.sectionsUpdated.length ? `, summaries ${outcome.sectionsUpdated.join(", ")}` : ""}`,
        );
      }
      return outcome.retry ? "retry" : undefined;
    },
    journal,
    onWarning: warn,
  });

  function resume(): number {
    if (!learning) return 0;
    const jobs = journal.adopt();
    if (jobs.length > 0) {
      log.info(`learning from ${jobs.length} conversation(s) an earlier process left in ${journal.path}`);
      queue.resume(jobs);
    }
    return jobs.length;
  }

  function promptBlock(): string {
    if (!enabled || !(settings.injectionEnabled ?? true)) return "";
    try {
      return renderMemoryBlock(store.load(), {
        maxTokens: settings.maxInjectionTokens ?? MEMORY_DEFAULTS.max_injection_tokens,
        guaranteedCategories: settings.guaranteedCategories,
        guaranteedTokens: settings.guaranteedTokenBudget,
        tokenCounter: options.tokenCounter,
      });
    } catch (error) {
      warn(
        `Memory could not be read from ${store.path} (${(error as Error).message}); the prompt carries no memory this time.`,
      );
      return "";
    }
  }

  return {
    path: store.path,
    store,
    updater,
    queue,
    middleware: () =>
      memoryMiddleware({
        queue: learning ? queue : { enqueue: () => {} },
        agentName,
        userId,
        logger: log,
      }),
    promptBlock,
    journalPath: journal.path,
    resume,
    learnedThrough: (threadId) => queue.learnedThrough(threadId, { agentName, userId }),
    flush: () => queue.flush(),
    close: async () => queue.stop(),
  };
}
