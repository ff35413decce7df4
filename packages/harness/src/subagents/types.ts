/**
 * The shapes shared by the subagent registry, the executor and the `task` tool.
 *
 * A subagent is a separate agent graph the lead delegates one self-contained job to. These types keep the
 * three pieces decoupled: the registry says which kinds exist, the caller (the lead engineer's wiring)
 * builds the graph for a kind through an injected `CreateSubagent`, and the executor only runs it.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type {
  DelegationStopReason,
  SandboxState,
  TerminalDelegationStatus,
  ThreadDataState,
  ToolReceipt,
} from "../state/shapes.js";
import type { SubagentTokenUsage } from "./events.js";
import type { Verification } from "./verification.js";

/** One kind of subagent the lead may delegate to through `task(subagent_type=...)`. */
export interface SubagentType {
  /** The value of `subagent_type` that selects it. */
  name: string;
  /** One or more lines shown to the lead model in the tool description and the prompt section. */
  description: string;
  /** The subagent's own system prompt (its first message). */
  systemPrompt: string;
  /** Tool allow-list; `null`/`undefined` inherits every parent tool not in `disallowedTools`. */
  tools?: string[] | null;
  /** Tools the subagent never gets; always includes `task`, `ask_clarification` and `present_files`. */
  disallowedTools: string[];
  /** Model name from config; `undefined` runs on the parent's model. */
  model?: string;
  /** Recursion limit of the subagent graph: its budget of graph steps. */
  maxTurns: number;
  /** Wall-clock budget; `undefined` uses the `task` tool's default. */
  timeoutSeconds?: number;
  /** Tokens (input + output) one run may use before it is stopped (`token_capped`); `undefined`: no budget. */
  maxTokens?: number;
}

/**
 * Terminal statuses a subagent run can end with (subagent_status_contract.json v2): the ledger's
 * terminal statuses but `polling_timed_out`, which only a lead that stops waiting records.
 */
export type SubagentStatus = Exclude<TerminalDelegationStatus, "polling_timed_out">;

/**
 * Why a guardrail ended a subagent run early: its turn cap (`max_turns`), its token budget, or loop
 * detection. The same values as the delegation ledger's `stop_reason`.
 */
export type SubagentStopReason = DelegationStopReason;

export type { SubagentTokenUsage } from "./events.js";

/** What came of one delegated run. */
export interface SubagentResult {
  status: SubagentStatus;
  /** The subagent's answer (completed runs, including turn-capped partial answers). */
  result?: string;
  /** What went wrong (every status but completed). */
  error?: string;
  stopReason?: SubagentStopReason;
  tokenUsage?: SubagentTokenUsage;
  /** The runtime-stamped receipts of the subagent's tool calls (`r1`, `r2`, …). */
  receipts?: ToolReceipt[];
  /** The lead runtime's check of the report against those receipts and the task's acceptance criteria. */
  verification?: Verification;
  /** Set when the task never started because the subagent queue turned it away or it waited too long. */
  queueOutcome?: "rejected" | "timed_out";
}

/** What the injected factory receives to build one subagent graph. */
export interface SubagentSpec {
  /** The `SubagentType.name`. */
  type: string;
  systemPrompt: string;
  /** Already filtered: the parent's tools minus the type's disallowed ones, within its allow-list. */
  tools: StructuredToolInterface[];
  /** Model name from the type; `undefined` means "the parent's model". */
  model?: string;
  maxTurns: number;
  /** The kind's token budget; the factory enforces it inside the run (e.g. `tokenUsageMiddleware`). */
  maxTokens?: number;
}

/** The input a subagent graph is started with: its own messages plus the parent's sandbox and files. */
export interface SubagentInput {
  messages: BaseMessage[];
  sandbox?: SandboxState | null;
  thread_data?: ThreadDataState | null;
}

/** The run config the executor passes; a compiled `createAgent` graph accepts it as is. */
export interface SubagentRunConfig {
  configurable: { thread_id: string; parent_thread_id?: string };
  recursionLimit: number;
  signal: AbortSignal;
  streamMode: "values";
}

/**
 * The part of a compiled graph the executor uses: `stream` in `values` mode, each chunk being the full
 * state. `createAgent(...)` results satisfy it.
 */
export interface SubagentGraph {
  stream(input: SubagentInput, config: SubagentRunConfig): Promise<AsyncIterable<unknown>>;
}

/**
 * Builds the graph for one delegation. The lead engineer's wiring decides the model and the subagent's
 * middleware chain; it must not attach a checkpointer (a subagent run is one-shot).
 */
export type CreateSubagent = (spec: SubagentSpec) => SubagentGraph | Promise<SubagentGraph>;
