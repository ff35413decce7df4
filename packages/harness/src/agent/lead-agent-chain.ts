/**
 * The lead agent's middleware chain, in order, in one place.
 *
 * Order is part of the contract: `beforeAgent`/`beforeModel` hooks run top to bottom, `afterModel`/
 * `afterAgent` bottom to top, and `wrapModelCall`/`wrapToolCall` nest with the first entry outermost.
 * Each entry says why it sits where it does. This is the only place that maps config to middleware
 * options; middlewares never read config themselves.
 */
import type { AgentMiddleware } from "langchain";
import type { AppConfig } from "../config/schema.js";
import { toolCallRepairMiddleware } from "../middleware/tool-call-repair.js";

/** Runtime switches of one run (DeerFlow's `configurable`), after defaults and clamping. */
export interface LeadRuntime {
  isPlanMode: boolean;
  subagentEnabled: boolean;
  maxConcurrentSubagents: number;
  agentName?: string;
}

/** What the chain is built from. */
export interface LeadChainInput {
  config: AppConfig;
  runtime: LeadRuntime;
  home: string;
  /** Middlewares given in code; they go right before clarification. */
  custom: readonly AgentMiddleware[];
  onWarning: (message: string) => void;
}

/** Builds the ordered middleware list of the lead agent. */
export function buildLeadChain(input: LeadChainInput): AgentMiddleware[] {
  const chain: (AgentMiddleware | false)[] = [
    // Repairs tool calls with invalid JSON arguments right after the model, before any tool runs.
    toolCallRepairMiddleware(),
    // Code-supplied middlewares sit inside the built-in chain but outside clarification.
    ...input.custom,
  ];
  return chain.filter((entry): entry is AgentMiddleware => entry !== false);
}
