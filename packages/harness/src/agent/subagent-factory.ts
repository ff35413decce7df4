/**
 * Builds the graph a `task` call runs: a subagent in an isolated context. It gets fresh state and no
 * checkpointer, shares the parent's sandbox and files, runs with thinking off, and has its own short
 * chain. The chain keeps the sandbox and context machinery (thread data, sandbox, tool-call repair,
 * durable context, summarization, loop detection) and nothing that talks to the user or persists across threads
 * (uploads, title, memory, clarification).
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { createAgent, type AgentMiddleware } from "langchain";
import type { AppConfig, ModelEntry } from "../config/schema.js";
import { danglingToolCallMiddleware } from "../middleware/dangling-tool-call.js";
import { durableContextMiddleware } from "../middleware/durable-context.js";
import { loopDetectionMiddleware } from "../middleware/loop-detection.js";
import { sandboxMiddleware } from "../middleware/sandbox.js";
import { summarizationMiddleware } from "../middleware/summarization.js";
import { threadDataMiddleware } from "../middleware/thread-data.js";
import { toolCallRepairMiddleware } from "../middleware/tool-call-repair.js";
import { toolErrorsMiddleware } from "../middleware/tool-errors.js";
import { createChatModel } from "../model/create-chat-model.js";
import { selectModel } from "../model/select-model.js";
import { createTokenCounter } from "../model/tokens.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { ThreadStateSchema } from "../state/thread-state.js";
import { modelRetryMiddleware } from "../middleware/model-retry.js";
import { knownTriggers, retryOptions } from "./lead-agent-chain.js";
import type { CreateSubagent, SubagentGraph } from "../subagents/types.js";

/** What subagents inherit from the lead. */
export interface SubagentFactoryInput {
  config: AppConfig;
  home: string;
  sandbox: SandboxProvider;
  /** The lead's model entry, used when a type has no model of its own. */
  parentEntry: ModelEntry;
  /** A model instance passed in code to the lead; subagents on the parent's model use it too. */
  parentChatModel?: BaseChatModel;
  env: Record<string, string | undefined>;
  onWarning: (message: string) => void;
}

/** Returns the `createSubagent` function the `task` tool calls. */
export function subagentFactory(input: SubagentFactoryInput): CreateSubagent {
  return (spec) => {
    const entry = spec.model ? selectModel(input.config, { modelName: spec.model }, input.env).entry : input.parentEntry;
    const timeoutSeconds = entry.timeout ?? input.config.llm_call.timeout_seconds;
    const model = !spec.model && input.parentChatModel ? input.parentChatModel : createChatModel(entry, { thinkingEnabled: false, timeoutSeconds });
    const summarization = input.config.summarization;
    const middleware: AgentMiddleware[] = [
      threadDataMiddleware({ home: input.home }),
      sandboxMiddleware({ provider: input.sandbox }),
      toolErrorsMiddleware(),
      danglingToolCallMiddleware(),
      toolCallRepairMiddleware(),
      modelRetryMiddleware(retryOptions(input.config, entry)),
      durableContextMiddleware({
        skillsContainerPath: input.config.skills.container_path,
        skillReadToolNames: summarization.skill_file_read_tool_names,
        onWarning: input.onWarning,
      }),
    ];
    if (summarization.enabled) {
      middleware.push(
        summarizationMiddleware({
          models: [model],
          trigger: knownTriggers(summarization.trigger, entry.max_input_tokens),
          keep: summarization.keep,
          trimTokensToSummarize: summarization.trim_tokens_to_summarize,
          summaryPrompt: summarization.summary_prompt ?? undefined,
          maxInputTokens: entry.max_input_tokens,
          tokenCounter: createTokenCounter(entry.model),
          onWarning: input.onWarning,
        }),
      );
    }
    // Last, so its afterModel runs first: a subagent stuck repeating one call stops long before max_turns.
    if (input.config.loop_detection.enabled) {
      const loop = input.config.loop_detection;
      middleware.push(loopDetectionMiddleware({ warnThreshold: loop.warn_threshold, hardLimit: loop.hard_limit, onWarning: input.onWarning }));
    }
    const agent = createAgent({ model, tools: spec.tools, stateSchema: ThreadStateSchema, middleware, checkpointer: false });
    return agent as unknown as SubagentGraph;
  };
}
