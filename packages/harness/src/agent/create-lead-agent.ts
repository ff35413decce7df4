/**
 * The one-agent entry point: a harness with exactly one option set. Library users who run a single
 * configuration keep this shape (`invoke`, `stream`, `graph`, `close()`); the CLI and the server use
 * `createHarness` directly, which shares services across option sets.
 *
 * Everything that can be wrong with the setup (unknown model, duplicate tool names, bad config) fails
 * here, before any model call.
 */
import type { AppConfig } from "../config/schema.js";
import {
  type AgentRunOptions,
  createHarness,
  DEFAULT_RECURSION_LIMIT,
  type HarnessOptions,
  type LeadAgentInfo,
} from "./harness.js";

export { DEFAULT_RECURSION_LIMIT, type LeadAgentInfo };

/** Runtime options of a run, named as in DeerFlow's `configurable`, plus what only code can pass. */
export interface LeadAgentOptions extends AgentRunOptions, HarnessOptions {}

/**
 * Creates the lead agent: langchain's agent (`invoke`, `stream`, and `graph` for `getState`) with
 * DeerFlow's middleware chain, plus `deerflow` (what was decided), `listThreadIds()`, `history(threadId)`
 * and `close()` (stop memory, whose unfinished updates stay journaled for the next process; release
 * sandboxes; close the database).
 *
 * @example
 * const config = loadConfig();
 * const agent = await createLeadAgent(config, { is_plan_mode: true });
 * const result = await agent.invoke({ messages: [{ role: "user", content: "Write a haiku" }] },
 *   { configurable: { thread_id: "t1" } });
 * await agent.close();
 */
export async function createLeadAgent(config: AppConfig, options: LeadAgentOptions = {}) {
  const harness = await createHarness(config, options);
  try {
    const agent = harness.agent({
      model_name: options.model_name,
      thinking_enabled: options.thinking_enabled,
      is_plan_mode: options.is_plan_mode,
      subagent_enabled: options.subagent_enabled,
      max_concurrent_subagents: options.max_concurrent_subagents,
      max_total_subagents: options.max_total_subagents,
      agent_name: options.agent_name,
      disable_clarification: options.disable_clarification,
    });
    return Object.assign(agent, {
      close: harness.close,
      listThreadIds: harness.listThreadIds,
      history: harness.history,
      harness,
    });
  } catch (error) {
    await harness.close();
    throw error;
  }
}

/** The agent `createLeadAgent` returns. */
export type LeadAgent = Awaited<ReturnType<typeof createLeadAgent>>;
